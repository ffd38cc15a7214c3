import { main } from "../main.js";

/** A `dsh web` started by a test. */
export interface DshWeb {
  /** The server's base URL, `http://127.0.0.1:PORT/`. */
  readonly url: string;
  /** The URL of `path` (e.g. `sessions/ID`) with the launch's secret, as a first visit needs it. */
  at(path: string): string;
  /** The header that carries the secret, for API calls. */
  readonly auth: Readonly<Record<string, string>>;
  stop(): Promise<number>;
}

/** `dsh web` started in-process in `cwd`: its URL, the secret it printed, and how to stop it (and wait for it to exit). */
export async function startDshWeb(cwd: string, args: readonly string[] = []): Promise<DshWeb> {
  const controller = new AbortController();
  let stdout = "";
  let stderr = "";
  const exited = main(["web", ...args], {
    cwd,
    env: {},
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    signal: controller.signal,
  });
  let code: number | undefined;
  void exited.then((value) => (code = value));
  for (let waited = 0; !stdout.includes("http://"); waited++) {
    if (code !== undefined || waited > 500) throw new Error(`dsh web did not start (exit ${code}): ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const printed = new URL(/http:\/\/\S+/.exec(stdout)![0]);
  const token = printed.searchParams.get("token") ?? "";
  const url = `${printed.origin}/`;
  return {
    url,
    at: (path) => `${url}${path}?token=${token}`,
    auth: { "x-dsh-token": token },
    stop: async () => {
      controller.abort();
      return exited;
    },
  };
}
