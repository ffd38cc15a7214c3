import { DshError } from "dsh-base";
import type { LogErrorCode } from "dsh-log";

/** Exit codes of the dsh command. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  log: 3,
  attachment: 4,
  provider: 5,
  unverified: 6,
  tools: 7,
  interrupted: 130,
} as const;

/** A failure the CLI reports as one line with a chosen exit code. */
export class CliError extends Error {
  override readonly name = "CliError";

  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
  ) {
    super(message);
  }
}

/** How a log error's line starts, where "bad log" would mislead. */
const LOG_LABELS: Partial<Record<LogErrorCode, string>> = {
  LOG_NOT_FOUND: "log not found",
  LOG_LOCKED: "log in use",
  LOG_STORE_UNAVAILABLE: "store unavailable",
  LOG_BAD_KEY: "signing key",
  LOG_WITNESS_FAILED: "witness",
};

/**
 * One line and an exit code for any error, without stack traces or secrets. Told apart by their
 * stable codes (every dsh error is a `DshError`), so reporting a failure loads no package that
 * raises one: a command loads only what it uses.
 */
export function describeFailure(error: unknown): { line: string; exitCode: number } {
  if (error instanceof CliError) return { line: error.message, exitCode: error.exitCode };
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof DshError ? (error.code as string) : "";
  const is = (prefix: string) => code.startsWith(prefix);
  if (is("LOG_")) {
    const what = LOG_LABELS[code as LogErrorCode] ?? "bad log";
    return { line: `${what}: ${message} [${code}]`, exitCode: code === "LOG_BAD_KEY" ? EXIT.usage : EXIT.log };
  }
  if (is("FIXTURE_")) return { line: `fixture: ${message} [${code}]`, exitCode: code === "FIXTURE_INVALID" ? EXIT.log : code === "FIXTURE_EXISTS" ? EXIT.usage : EXIT.failure };
  if (is("PROOF_")) {
    if (code === "PROOF_REFUSED" || code === "PROOF_UNBACKED") return { line: `proof refused: ${message}`, exitCode: EXIT.unverified };
    return { line: code === "PROOF_NOT_A_DISPATCH" ? `${message} (dsh requests LOG lists them)` : message, exitCode: EXIT.usage };
  }
  if (is("WHAT_IF_")) return { line: message, exitCode: code === "WHAT_IF_NOT_REPLAYABLE" ? EXIT.failure : EXIT.usage };
  if (is("WIRE_")) return { line: `cannot rebuild: ${message} [${code}]`, exitCode: EXIT.log };
  if (is("OTEL_")) return { line: `export: ${message} [${code}]`, exitCode: code === "OTEL_INVALID_OPTIONS" ? EXIT.usage : EXIT.failure };
  if (is("ATTACHMENT_")) return { line: `attachment: ${message} [${code}]`, exitCode: EXIT.attachment };
  if (is("LLM_")) return { line: `${code === "LLM_NETWORK" ? "provider unreachable" : "provider error"}: ${message} [${code}]`, exitCode: EXIT.provider };
  return { line: message, exitCode: EXIT.failure };
}
