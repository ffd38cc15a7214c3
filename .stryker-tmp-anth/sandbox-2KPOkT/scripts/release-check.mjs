#!/usr/bin/env node
// Checks the release flow without publishing: `pnpm publish -r --dry-run` succeeds, and changesets
// bumps a package and only the dependents that need it (a patch stays inside every `^0.x.y` range;
// a minor at 0.x leaves it, so the dependents follow with a patch).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pnpm, root, run } from "./toolchain.mjs";

const { command, prefix } = pnpm();
run(command, [...prefix, "build"], { quiet: true });
run(command, [...prefix, "publish", "-r", "--dry-run", "--no-git-checks"], { quiet: true });

const names = readdirSync(join(root, "packages"));
const manifestOf = (name) => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));

// Every published version line starts at 0.1.0: at 0.0.x a caret range admits exactly one version, so
// a dependent would refuse every later patch. Every internal range is the workspace protocol, which
// pnpm publishes as `^` + the version it points at, so it always admits that version.
for (const name of names) {
  const manifest = manifestOf(name);
  if (manifest.private) continue;
  if (/^0\.0\./.test(manifest.version)) throw new Error(`${name} is at ${manifest.version}: a published version line starts at 0.1.0 (^0.0.x admits one version only)`);
  for (const field of ["dependencies", "peerDependencies", "optionalDependencies"]) {
    for (const [dependency, range] of Object.entries(manifest[field] ?? {})) {
      if (!names.includes(dependency)) continue;
      if (range !== "workspace:^") throw new Error(`${name} depends on ${dependency}@${range}: internal ranges are workspace:^, published as ^ and the version they point at`);
      if (manifestOf(dependency).private) throw new Error(`${name} depends on the private ${dependency}`);
    }
  }
}
const versionsIn = (dir) => Object.fromEntries(names.map((name) => [name, JSON.parse(readFileSync(join(dir, "packages", name, "package.json"), "utf8")).version]));
const dependsOn = (name, dependency) => dependency in (JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).dependencies ?? {});

/** Applies one changeset to a scratch copy of the manifests and returns the versions after `changeset version`. */
function versionWith(bump) {
  const dir = mkdtempSync(join(tmpdir(), "dsh-release-"));
  for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset/config.json"]) cpSync(join(root, file), join(dir, file));
  for (const name of names) {
    mkdirSync(join(dir, "packages", name), { recursive: true });
    cpSync(join(root, "packages", name, "package.json"), join(dir, "packages", name, "package.json"));
  }
  writeFileSync(join(dir, ".changeset", "check.md"), `---\n"dsh-log": ${bump}\n---\n\nA ${bump} change to dsh-log.\n`);
  run("git", ["init", "-q", "-b", "main"], { cwd: dir });
  run("git", ["-c", "user.name=check", "-c", "user.email=check@localhost", "commit", "-q", "--allow-empty", "-m", "scratch"], { cwd: dir });
  run(join(root, "node_modules", ".bin", "changeset"), ["version"], { cwd: dir, quiet: true });
  return versionsIn(dir);
}

const before = versionsIn(root);
const changed = (after) => names.filter((name) => after[name] !== before[name]).sort();
const patched = versionWith("patch");
if (JSON.stringify(changed(patched)) !== JSON.stringify(["dsh-log"])) throw new Error(`a dsh-log patch bumped ${changed(patched).join(", ")}`);
const minored = versionWith("minor");
const dependents = [...names.filter((name) => dependsOn(name, "dsh-log") && before[name] !== undefined && !JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).private)].sort();
const expected = ["dsh-log", ...dependents].sort();
if (JSON.stringify(changed(minored)) !== JSON.stringify(expected)) throw new Error(`a dsh-log minor bumped ${changed(minored).join(", ")}, expected ${expected.join(", ")}`);
console.log(`release check passed: publish dry run; a dsh-log patch bumps only dsh-log; a minor bumps dsh-log to ${minored["dsh-log"]} and its dependents ${dependents.join(", ")}`);
