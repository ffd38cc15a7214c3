// `npm run demo`: a multi-step scripted task on the embedded provider simulator, resumed by a second
// process on another model, then the prefix-cache report of the log, then proof that the requests
// rebuilt from the log are, byte for byte, the bodies the simulator received over HTTP.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const outDir = join(root, ".dsh", "demo", new Date().toISOString().replace(/[:.]/g, "-"));
mkdirSync(outDir, { recursive: true });
const logPath = join(outDir, "session.jsonl");
const wirePath = join(outDir, "received.jsonl");

function dsh(args, { capture = false } = {}) {
  const result = spawnSync(process.execPath, ["--conditions=dsh-source", "--import", "tsx", "packages/dsh-cli/src/bin.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    stdio: capture ? ["ignore", "pipe", "inherit"] : "inherit",
  });
  if (result.status !== 0) {
    console.error(`\ndemo: \`dsh ${args[0]}\` exited with ${result.status}`);
    process.exit(1);
  }
  return result.stdout;
}

const heading = (text) => console.log(`\n\x1b[1m== ${text}\x1b[0m`);

// The embedded simulator keeps its prompt cache in .dsh/simulator-cache.json so that a resume in another
// process finds what the first one wrote; an earlier demo's entries would make this run's first requests
// read from the cache. Every demo starts cold, so it shows the same figures run after run.
rmSync(join(root, ".dsh", "simulator-cache.json"), { force: true });
console.log("(the simulator's prompt cache starts cold: .dsh/simulator-cache.json was cleared)");

heading("1. dsh run: a scripted multi-step task on the simulator (one HTTP 429 on the way)");
dsh(["run", "--scenario", "examples/demo/scenario.json", "--log", logPath, "--record-wire", wirePath, "What is this repository?"]);

heading("2. dsh resume: a new process continues the session on another model");
dsh(["resume", logPath, "--model", "sim-2", "--scenario", "examples/demo/resume.json", "--record-wire", wirePath, "Where are the design decisions written down?"]);

heading("3. dsh cache: per-step prefix stability, cache reads, and the logged cause of every break");
dsh(["cache", logPath]);

heading("4. dsh requests --wire: rebuild every request from the log alone");
const rebuilt = dsh(["requests", logPath, "--wire"], { capture: true }).trimEnd().split("\n");
const received = readFileSync(wirePath, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
// A retry resends the very same frozen request, so consecutive identical bodies are one request.
const distinct = received.filter((body, i) => i === 0 || body !== received[i - 1]);
const retries = readFileSync(logPath, "utf8").split("\n").filter((line) => line.includes('"type":"request/retry"')).length;
const identical = distinct.length === rebuilt.length && distinct.every((body, i) => body === rebuilt[i]);
const bytes = rebuilt.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
console.log(`simulator received ${received.length} bodies (${received.length - distinct.length} retried resend, ${retries} request/retry logged)`);
console.log(`rebuilt ${rebuilt.length} requests (${bytes} bytes) from ${logPath}`);
if (!identical || received.length - distinct.length !== retries) {
  console.error("demo: MISMATCH between the rebuilt requests and the bodies the simulator received");
  process.exit(1);
}
console.log("\x1b[32m✓ every body the simulator received equals, byte for byte, the request rebuilt from the log\x1b[0m");
heading("5. dsh copy: the session into the default store, for the web app");
dsh(["copy", logPath, join(root, ".dsh", "sessions")]);
console.log(`\nexplore further: npm run dsh -- web   (then open the URL it prints), or npm run dsh -- inspect ${logPath}`);
