#!/usr/bin/env node
// The core packages' tests on the Node lines our users run (22 and 24), from source, as CI runs them.
import { join } from "node:path";
import { nodeBinary, root, run } from "./toolchain.mjs";

const CORE = ["dsh-base", "dsh-attachments", "dsh-llm", "dsh-log", "dsh-surface", "dsh-header", "dsh-agent"];
const majors = process.argv.slice(2).map(Number);
for (const major of majors.length > 0 ? majors : [22, 24]) {
  const node = nodeBinary(major);
  console.log(`\n== core packages' tests on Node ${major}`);
  run(node, [join(root, "node_modules", "vitest", "vitest.mjs"), "run", ...CORE.flatMap((name) => ["--project", name])]);
}
