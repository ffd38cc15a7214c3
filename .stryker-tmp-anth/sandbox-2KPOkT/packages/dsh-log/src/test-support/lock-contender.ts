// Prints "ready", waits for a line on stdin, then tries to lock the file named on the command line;
// prints "held" or "locked" and holds what it got until stdin closes.
import { acquireLock } from "../file-lock.js";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: lock-contender PATH");
process.stdout.write("ready\n");
process.stdin.setEncoding("utf8");
await new Promise((resolve) => process.stdin.once("data", resolve));
const lock = await acquireLock(path).catch((error: { code?: string }) => {
  if (error.code !== "LOG_LOCKED") throw error;
  return undefined;
});
process.stdout.write(lock === undefined ? "locked\n" : "held\n");
process.stdin.on("end", () => void lock?.release().then(() => process.exit(0)));
