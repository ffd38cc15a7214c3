import { previewText, type ToolApprover } from "dsh-agent";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";

/** The terminal question `--approve` needs; without one, `--approve` is refused (before any session is created). */
export function askOrRefuse(io: CliIo): NonNullable<CliIo["ask"]> {
  if (io.ask === undefined) throw new CliError("--approve asks on the terminal, and this dsh has none to ask on", EXIT.usage);
  return io.ask;
}

/**
 * `--approve`: each tool call is shown on the terminal and runs only on a `y` (or `yes`); anything
 * else, or the end of input, denies it. Decisions are logged as made by `terminal`.
 */
export function terminalApprover(io: CliIo): ToolApprover {
  const ask = askOrRefuse(io);
  return async (request) => {
    const answer = await ask(`dsh: run ${request.toolName} ${previewText(request.arguments, 120)}? [y/N] `);
    if (answer !== undefined && /^\s*y(es)?\s*$/i.test(answer)) return { allow: true, by: "terminal" };
    return { allow: false, by: "terminal", reason: answer === undefined ? "no answer (input ended)" : "declined" };
  };
}
