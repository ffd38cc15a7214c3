#!/usr/bin/env node
import { main } from "./main.js";

const controller = new AbortController();
// A reader that stops early (`dsh requests LOG | head -1`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}
async function readStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}
/** One line of standard input per question, the question on standard error (stdout may hold answers). */
const lines = (async function* () {
  const { createInterface } = await import("node:readline");
  yield* createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
})();
async function ask(question: string): Promise<string | undefined> {
  process.stderr.write(question);
  const next = await lines.next();
  return next.done === true ? undefined : next.value;
}
process.once("SIGINT", () => controller.abort());
// Deprecation notices are for the authors of the libraries dsh uses (pg warns of a pattern inside its
// own pool): only dsh's own lines belong on a user's stderr.
process.noDeprecation = true;
const code = await main(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: readStdin,
  ask,
  signal: controller.signal,
});
process.exitCode = code;
// A finished command exits, whatever a library left running (a pool, a retry timer): once what it
// wrote has been handed to the terminal or the pipe.
await Promise.all([process.stdout, process.stderr].map((stream) => new Promise<void>((resolve) => stream.write("", () => resolve()))));
process.exit(code);
