// The consumer test's piecemeal part: every tarball published to a registry on loopback, then each
// project installing from it only what a reader is told to install, as from the public registry:
// the quick start's `npm install` lines, then `dsh-cli` for `npx dsh`; and each package's README
// example in a project of its own with only the packages that example imports. npm resolves dsh's
// own dependencies from the registry, so a dependency a package uses but does not declare fails here.
// (The SQLite store's example is the one left out: its native module would compile a second time.)
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { publishAll, startLoopbackRegistry } from "./loopback-registry.mjs";
import { installedVersion, run } from "./toolchain.mjs";

const npmInstall = ["install", "--no-audit", "--no-fund", "--loglevel=error"];

/** Packages whose native module npm compiles on install. */
const NATIVE = new Set(["dsh-store-sqlite"]);

/** Runs a command in `cwd` to its end; its output is shown only when it fails, which throws. */
function runIn(cwd, command, args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${[command, ...args].join(" ")} exited with ${code} in ${cwd}:\n${output}`))));
  });
}

/** A fresh npm project at `dir` whose registry is `url`. */
function project(dir, url) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "dsh-piecemeal", private: true, type: "module" }, null, 2));
  writeFileSync(join(dir, ".npmrc"), `registry=${url}\n`);
  return dir;
}

/** The packages a program imports (bare specifiers, subpaths mapped to their package), `node:` built-ins aside. */
function importedPackages(source) {
  const names = new Set();
  for (const [, specifier] of source.matchAll(/from "([^"]+)"/g)) {
    if (specifier.startsWith("node:") || specifier.startsWith(".")) continue;
    const parts = specifier.split("/");
    names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
  }
  return [...names];
}

/** A third-party package at the version the workspace uses (what the README examples were checked with); dsh's own at the registry's latest. */
function pinned(name) {
  if (name.startsWith("dsh-")) return name;
  try {
    return `${name}@${installedVersion(name)}`;
  } catch {
    return name;
  }
}

/**
 * Runs the piecemeal checks in `work`: `tarballs` published, the quick start followed from
 * `quickStart` (its guide text) and each of `examples` (`{ name, dir }`, with examples/quickstart.ts)
 * run in a project of its own, with `env` (DATABASE_URL for the PostgreSQL store's example).
 */
export async function piecemealTest({ work, tarballs, quickStart, examples, env }) {
  console.log("\n== installed piecemeal from a loopback registry, as from the public one");
  const registry = await startLoopbackRegistry(join(work, "registry"));
  try {
    publishAll(tarballs, registry.npmrc, join(work, "publish"));
    console.log(`published ${tarballs.length} packages to the loopback registry`);

    // The quick start: its install lines as written, its program and try-it.ts, twice; then the CLI.
    const quick = project(join(work, "piecemeal-quick-start"), registry.url);
    const section = quickStart.split("## In your own code")[1];
    const installs = [...section.matchAll(/^npm install ([^#\n]+)/gm)].map((match) => match[1].trim().split(/\s+/));
    if (installs.length < 2) throw new Error("the quick start no longer says what to install for its program and its keyless run");
    for (const names of installs) run("npm", [...npmInstall, ...names.map(pinned)], { cwd: quick });
    const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
    writeFileSync(join(quick, "agent.ts"), blocks[0]);
    writeFileSync(join(quick, "try-it.ts"), blocks.find((block) => block.startsWith("// try-it.ts\n")));
    const printed = [0, 1].map(() => run(process.execPath, ["--import", "tsx", "try-it.ts"], { cwd: quick, quiet: true }).stdout);
    if (!printed.every((text) => text.includes("It is noon in Tokyo."))) throw new Error(`the quick start, installed piecemeal, printed ${printed.join("")}`);
    run("npm", [...npmInstall, "dsh-cli"], { cwd: quick });
    const cache = run("npx", ["dsh", "cache", "session.jsonl"], { cwd: quick, quiet: true }).stdout;
    if (!cache.includes("4 request(s)")) throw new Error(`npx dsh cache, installed piecemeal, printed ${cache}`);
    const demo = run("npx", ["dsh", "run", "What is in this directory?"], { cwd: quick, quiet: true });
    if (!demo.stderr.includes("dsh: turn 0 completed")) throw new Error(`npx dsh run, installed piecemeal, printed ${demo.stderr}`);
    // The CLI's PostgreSQL store is an optional peer: installed when asked for, then used.
    run("npm", [...npmInstall, "dsh-store-postgres"], { cwd: quick });
    run("npx", ["dsh", "run", "--store", env.DATABASE_URL, "What is in this directory?"], { cwd: quick, quiet: true });
    const listed = run("npx", ["dsh", "sessions", "--store", env.DATABASE_URL, "--json"], { cwd: quick, quiet: true }).stdout.trim().split("\n");
    const id = JSON.parse(listed.at(-1)).sessionId;
    if (!run("npx", ["dsh", "verify", "--store", env.DATABASE_URL, id], { cwd: quick, quiet: true }).stdout.startsWith("intact: ")) throw new Error("npx dsh verify on PostgreSQL, installed piecemeal, did not say intact");
    console.log("the quick start ran twice from its own install lines; npx dsh read its session, ran a turn, and ran and verified one on PostgreSQL once dsh-store-postgres was installed");

    // Each README example with only the packages it imports (and tsx to run it), three at a time.
    // better-sqlite3 compiles from source here (no prebuilt binary is reachable), minutes each time:
    // the SQLite store's example runs from the tarballs above, and is not built a second time.
    const queue = examples.filter(({ name }) => !NATIVE.has(name));
    const worker = async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const source = readFileSync(join(next.dir, "examples", "quickstart.ts"), "utf8");
        const needs = importedPackages(source);
        const alone = project(join(work, `piecemeal-${next.name}`), registry.url);
        await runIn(alone, "npm", [...npmInstall, ...needs.map(pinned), pinned("tsx")]);
        writeFileSync(join(alone, "example.ts"), source);
        await runIn(alone, process.execPath, ["--import", "tsx", "example.ts"], env);
        console.log(`${next.name}'s README example ran with only ${needs.join(", ")} installed`);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  } finally {
    registry.stop();
  }
}
