import { main } from "../main.js";

/** `dsh web` started in-process in `cwd`: its URL and how to stop it (and wait for it to exit). */
export async function startDshWeb(cwd: string, args: readonly string[] = []): Promise<{ url: string; stop: () => Promise<number> }> {
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
  const url = /http:\/\/\S+/.exec(stdout)![0];
  return {
    url,
    stop: async () => {
      controller.abort();
      return exited;
    },
  };
}
