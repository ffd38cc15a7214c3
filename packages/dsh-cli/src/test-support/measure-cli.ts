// Runs one dsh command in this process and prints, as JSON, its exit code, the bytes it wrote to
// stdout and how far the process's peak memory grew past what it held once the modules were loaded.
// Usage: measure-cli.ts CWD STDIN-FILE|- ARGS...
import { readFile } from "node:fs/promises";
import { loadCommand, main } from "../main.js";

const [cwd, stdinFile, ...argv] = process.argv.slice(2);
// The command's modules are loaded before the baseline: what is measured is the work, not the code.
await loadCommand(argv[0]!);
const stdinText = stdinFile === "-" ? undefined : await readFile(stdinFile!, "utf8");
const baseline = process.resourceUsage().maxRSS * 1024;
let bytes = 0;
let errors = "";
const code = await main(argv, {
  cwd: cwd!,
  env: {},
  stdout: { write: (text: string) => void (bytes += Buffer.byteLength(text)), isTTY: false },
  stderr: { write: (text: string) => void (errors += text) },
  ...(stdinText === undefined ? {} : { stdin: async () => stdinText }),
});
const growth = process.resourceUsage().maxRSS * 1024 - baseline;
process.stdout.write(`${JSON.stringify({ code, bytes, growth, errors: errors.slice(-500) })}\n`);
