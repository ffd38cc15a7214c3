/** Where a command reads its environment and writes its output; injected so commands are testable in-process. */
export interface CliIo {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  /** Reads all of standard input (for a PROMPT given as `-`). */
  readonly stdin?: () => Promise<string>;
  /** Asks a question on the terminal and reads one line of answer (`undefined` once input has ended). */
  readonly ask?: (question: string) => Promise<string | undefined>;
  /** Aborted when the user interrupts (Ctrl-C). */
  readonly signal?: AbortSignal;
}
