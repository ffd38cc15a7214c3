// The pinned pnpm, installed dependencies, and child processes that fail loudly: what every
// top-level script (`npm test`, `npm run demo`, CI) stands on, on a machine with only Node and npm.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const root = join(import.meta.dirname, "..");
const PNPM = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager.replace(/^pnpm@/, "");

/**
 * Runs a command with inherited output (or, with `quiet`, output shown only if it fails) and exits
 * with its status if it fails.
 */
export function run(command, args, options = {}) {
  const { quiet = false, ...spawnOptions } = options;
  const stdio = quiet ? "pipe" : "inherit";
  const result = spawnSync(command, args, { cwd: root, stdio, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...spawnOptions, env: { TURBO_TELEMETRY_DISABLED: "1", ...process.env, ...options.env } });
  if (result.error !== undefined) throw result.error;
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout}${result.stderr}`);
    console.error(`\n${[command, ...args].join(" ")} exited with ${result.status ?? result.signal}`);
    process.exit(result.status ?? 1);
  }
  return result;
}

/**
 * Starts a command whose output (stdout and stderr together) goes to a file, and resolves once it
 * ends with its exit code, signal and that output: children run at once, each printed whole. A file,
 * not a pipe, so a child never waits on a parent busy with something synchronous.
 */
export function runCaptured(command, args) {
  const dir = mkdtempSync(join(tmpdir(), "dsh-run-"));
  const file = join(dir, "output");
  const fd = openSync(file, "w");
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", fd, fd], env: { TURBO_TELEMETRY_DISABLED: "1", ...process.env } });
  // The child writes through its own copy of the descriptor.
  closeSync(fd);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const output = readFileSync(file, "utf8");
      rmSync(dir, { recursive: true, force: true });
      resolve({ code: code ?? 1, signal, output });
    });
  });
}

/** The pinned pnpm: the installed one when it is that version, else the same version through npx. */
export function pnpm() {
  const installed = spawnSync("pnpm", ["--version"], { encoding: "utf8" });
  if (installed.status === 0 && installed.stdout.trim() === PNPM) return { command: "pnpm", prefix: [] };
  return { command: "npx", prefix: ["-y", `pnpm@${PNPM}`] };
}

/** Installs the locked dependencies unless node_modules already holds exactly this lockfile. */
export function ensureDependencies() {
  const installed = join(root, "node_modules", ".pnpm", "lock.yaml");
  const lock = readFileSync(join(root, "pnpm-lock.yaml"), "utf8");
  if (existsSync(installed) && readFileSync(installed, "utf8") === lock) return;
  const { command, prefix } = pnpm();
  // The install's own output (a native module's compiler lines among it) is shown only if it fails.
  console.log("dsh: installing the locked dependencies (once; better-sqlite3 and the test PostgreSQL are native and may build from source for a minute or two) …");
  const started = Date.now();
  run(command, [...prefix, "install", "--frozen-lockfile"], { quiet: true });
  console.log(`dsh: dependencies installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Runs a binary installed in node_modules/.bin. */
export function bin(name, args, options = {}) {
  return run(join(root, "node_modules", ".bin", name), args, options);
}

/** The path of a Node binary of `major` (from the registry's `node` package), or this process's own. */
export function nodeBinary(major) {
  if (Number(process.versions.node.split(".")[0]) === major) return process.execPath;
  const result = spawnSync("npx", ["-y", `node@${major}`, "-p", "process.execPath"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`cannot get Node ${major} from the registry: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

/** The version of a package the workspace installed (at the root, in a package, or hoisted by pnpm), to install the same elsewhere. */
export function installedVersion(name) {
  const places = [join(root, "node_modules"), ...readdirSync(join(root, "packages")).map((dir) => join(root, "packages", dir, "node_modules")), join(root, "node_modules", ".pnpm", "node_modules")];
  for (const place of places) {
    const manifest = join(place, name, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).version;
  }
  throw new Error(`${name} is not installed in the workspace`);
}
