import { main } from "../main.js";

/** Runs the CLI in-process and captures what it prints; `onStdout` hears standard output as it is written. */
export async function runCli(argv: readonly string[], options: { cwd: string; env?: Record<string, string>; stdin?: string; answers?: readonly string[]; tty?: boolean; signal?: AbortSignal; onStdout?: (stdout: string) => void }) {
  let stdout = "";
  let stderr = "";
  const answers = [...(options.answers ?? [])];
  const code = await main(argv, {
    cwd: options.cwd,
    env: options.env ?? {},
    stdout: {
      write: (text: string) => {
        stdout += text;
        options.onStdout?.(stdout);
      },
      isTTY: options.tty === true,
    },
    ...(options.stdin === undefined ? {} : { stdin: async () => options.stdin! }),
    ...(options.answers === undefined
      ? {}
      : {
          ask: async (question: string) => {
            stderr += question;
            return answers.shift();
          },
        }),
    stderr: { write: (text: string) => (stderr += text) },
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { code, stdout, stderr };
}
