#!/usr/bin/env node
// `npm test` and `npm run demo` on a machine with only Node and npm: install the pinned toolchain and
// the locked dependencies when needed, then run the task.
//   test  every package's tests from source, then the consumer test (packed tarballs in a fresh
//         project, on Node 20, 22 and 24), the core packages' tests on Node 22 and 24, and the
//         release flow (publish dry run, changesets bumping only what needs it)
//   demo  the scripted demo of the README
//   build every package with turbo, run through the pinned pnpm (turbo needs it on its PATH)
import { bin, ensureDependencies, pnpm, run, runCaptured } from "./toolchain.mjs";

/** Starts `command` with its output in a file; the promise prints that output once it ends, and exits when it failed. */
async function backgroundRun(command, args) {
  const { code, signal, output } = await runCaptured(command, args);
  process.stdout.write(output);
  if (code !== 0) {
    console.error(`\n${[command, ...args].join(" ")} exited with ${signal ?? code}`);
    process.exit(code);
  }
}

const task = process.argv[2];
ensureDependencies();
if (task === "test") {
  bin("vitest", ["run"]);
  // The core tests on Node 22 and 24 run while the consumer test (mostly one process at a time) does;
  // their output goes to a file, printed after the consumer test's, so the two never interleave.
  const matrix = backgroundRun(process.execPath, ["scripts/node-matrix.mjs"]);
  run(process.execPath, ["scripts/consumer-test.mjs"]);
  await matrix;
  run(process.execPath, ["scripts/release-check.mjs"]);
} else if (task === "demo") {
  run(process.execPath, ["scripts/demo.mjs"]);
} else if (task === "build") {
  const { command, prefix } = pnpm();
  run(command, [...prefix, "exec", "turbo", "run", "build"]);
} else {
  console.error("usage: node scripts/task.mjs test|demo|build");
  process.exit(2);
}
