#!/usr/bin/env node
// The core packages' tests on the Node lines our users run (22 and 24), from source, as CI runs them.
// The lines run at once (about 40 s less of CI than one after the other on two cores); each one's
// output is printed whole when it ends, so the two never interleave.
import { join } from "node:path";
import { nodeBinary, root, runCaptured } from "./toolchain.mjs";

const CORE = ["dsh-base", "dsh-attachments", "dsh-llm", "dsh-log", "dsh-surface", "dsh-header", "dsh-agent"];
const majors = process.argv.slice(2).map(Number);

/** Runs the core tests on Node `major`, resolving with its exit code and everything it printed. */
async function coreTests(major) {
  const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
  return { major, ...(await runCaptured(nodeBinary(major), [vitest, "run", ...CORE.flatMap((name) => ["--project", name])])) };
}

let failed = false;
const runs = (majors.length > 0 ? majors : [22, 24]).map(coreTests);
for (const done of runs) {
  const { major, code, signal, output } = await done;
  console.log(`\n== core packages' tests on Node ${major}`);
  process.stdout.write(output);
  if (code !== 0) {
    console.error(`\nthe core packages' tests on Node ${major} exited with ${signal ?? code}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
