// The dsh fixtures action's step: finds every fixture under DSH_FIXTURES and checks them all with the
// project's own dsh (`npx dsh fixture check ... --format github`), which writes an annotation per
// failed fixture and appends a summary to GITHUB_STEP_SUMMARY. Exits as the check does.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = resolve(process.env.DSH_FIXTURES || "fixtures");

/** Every folder under `dir` holding a fixture.json (a fixture's own folders are not searched). */
function fixturesUnder(dir) {
  if (existsSync(join(dir, "fixture.json"))) return [dir];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules")
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => fixturesUnder(join(dir, entry.name)));
}

function fail(message) {
  process.stdout.write(`::error title=dsh fixtures::${message}\n`);
  process.exit(1);
}

if (!existsSync(root)) fail(`no folder ${relative(process.cwd(), root) || "."}: set the action's fixtures input to the folder your fixtures are in`);
const fixtures = fixturesUnder(root).map((dir) => relative(process.cwd(), dir) || ".");
if (fixtures.length === 0) fail(`no dsh fixture (a folder with a fixture.json) under ${relative(process.cwd(), root) || "."}`);
const dsh = process.env.DSH_BIN || join(process.cwd(), "node_modules", ".bin", "dsh");
if (!existsSync(dsh)) fail("dsh-cli is not installed in this project: add it (npm install --save-dev dsh-cli) and install before this step");
const limits = [...(process.env.DSH_CACHE_FLOOR ? ["--cache-floor", process.env.DSH_CACHE_FLOOR] : []), ...(process.env.DSH_MAX_WRITE_AMP ? ["--max-write-amp", process.env.DSH_MAX_WRITE_AMP] : [])];
const run = spawnSync(dsh, ["fixture", "check", ...fixtures, "--format", "github", ...limits], { stdio: "inherit" });
process.exit(run.status ?? 1);
