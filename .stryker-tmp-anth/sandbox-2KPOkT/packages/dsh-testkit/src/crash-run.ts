import { spawn } from "node:child_process";

/**
 * Runs `script` (TypeScript, from source) with `args` in a child process that prints `ack N` for each
 * acknowledged write; once `acks` lines have come, waits `lingerMs` and SIGKILLs it mid-work. Resolves
 * the highest acknowledged N; rejects if the child exits on its own.
 */
export function runUntilKilled(script: string, args: readonly string[], acks: number, lingerMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let highest = -1;
    let seen = 0;
    let buffered = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        highest = Math.max(highest, Number(line.slice("ack ".length)));
        if (++seen === acks) setTimeout(() => child.kill("SIGKILL"), lingerMs);
      }
    });
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(highest) : reject(new Error(`the writer exited on its own: ${stderr}`))));
  });
}
