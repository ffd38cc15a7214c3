import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const WORKER = fileURLToPath(new URL("./worker.ts", import.meta.url));

/** How a worker process ended, and the JSON line it printed last. */
export interface WorkerRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly result: { outcomes?: { sessionId: string; reason: string; turn: number }[]; error?: string; code?: string } | undefined;
  readonly stderr: string;
}

/** Runs the crash tests' worker in its own process until it exits (or is killed). */
export function runWorker(env: Record<string, string>): Promise<WorkerRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", WORKER], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const line = stdout.trim().split("\n").at(-1);
      resolve({ code, signal, result: line ? (JSON.parse(line) as WorkerRun["result"]) : undefined, stderr });
    });
  });
}
