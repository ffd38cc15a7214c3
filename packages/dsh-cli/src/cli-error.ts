import { AttachmentError } from "dsh-attachments";
import { FixtureError } from "dsh-fixtures";
import { LlmError } from "dsh-llm";
import { LogError } from "dsh-log";
import { OtelError } from "dsh-otel";
import { ProofError } from "dsh-proof";
import { WhatIfError } from "dsh-what-if";
import { WireError } from "dsh-wire";

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
const LOG_LABELS: Partial<Record<LogError["code"], string>> = {
  LOG_NOT_FOUND: "log not found",
  LOG_LOCKED: "log in use",
  LOG_STORE_UNAVAILABLE: "store unavailable",
  LOG_BAD_KEY: "signing key",
  LOG_WITNESS_FAILED: "witness",
};

/** One line and an exit code for any error, without stack traces or secrets. */
export function describeFailure(error: unknown): { line: string; exitCode: number } {
  if (error instanceof CliError) return { line: error.message, exitCode: error.exitCode };
  if (error instanceof LogError) {
    const what = LOG_LABELS[error.code] ?? "bad log";
    return { line: `${what}: ${error.message} [${error.code}]`, exitCode: error.code === "LOG_BAD_KEY" ? EXIT.usage : EXIT.log };
  }
  if (error instanceof FixtureError) {
    return { line: `fixture: ${error.message} [${error.code}]`, exitCode: error.code === "FIXTURE_INVALID" ? EXIT.log : error.code === "FIXTURE_EXISTS" ? EXIT.usage : EXIT.failure };
  }
  if (error instanceof ProofError) {
    if (error.code === "PROOF_REFUSED" || error.code === "PROOF_UNBACKED") return { line: `proof refused: ${error.message}`, exitCode: EXIT.unverified };
    return { line: error.code === "PROOF_NOT_A_DISPATCH" ? `${error.message} (dsh requests LOG lists them)` : error.message, exitCode: EXIT.usage };
  }
  if (error instanceof WhatIfError) return { line: error.message, exitCode: error.code === "WHAT_IF_NOT_REPLAYABLE" ? EXIT.failure : EXIT.usage };
  if (error instanceof WireError) return { line: `cannot rebuild: ${error.message} [${error.code}]`, exitCode: EXIT.log };
  if (error instanceof OtelError) return { line: `export: ${error.message} [${error.code}]`, exitCode: error.code === "OTEL_INVALID_OPTIONS" ? EXIT.usage : EXIT.failure };
  if (error instanceof AttachmentError) return { line: `attachment: ${error.message} [${error.code}]`, exitCode: EXIT.attachment };
  if (error instanceof LlmError) {
    const what = error.code === "LLM_NETWORK" ? "provider unreachable" : "provider error";
    return { line: `${what}: ${error.message} [${error.code}]`, exitCode: EXIT.provider };
  }
  return { line: error instanceof Error ? error.message : String(error), exitCode: EXIT.failure };
}
