import { LlmError, isUnsent, type FrozenGenerateOptions, type GenerateResult, type StreamChunk } from "dsh-llm";
import { requestRetryEvent, type StepEndReason } from "./events.js";
import { loggedError } from "./logged-error.js";
import type { Loop } from "./loop.js";
import { retryDelayMs, sleep } from "./retry.js";

/** A step that failed (or was aborted) after it opened; the turn logs and rethrows `failure`. */
export class StepFailure extends Error {
  constructor(
    readonly reason: StepEndReason,
    readonly failure: unknown,
    /** Whether any attempt of the step's request may have left the process (false only when each was marked unsent). */
    readonly sent = true,
  ) {
    super("step failed");
  }
}

/** Where an attempt belongs and who watches it. */
export interface AttemptContext {
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly onChunk: ((chunk: StreamChunk) => void) | undefined;
}

/**
 * Streams the request through the runtime, retrying retryable failures with the very same frozen
 * object; each retry is logged (attempt, delay, error) before the wait. A failure is a
 * {@link StepFailure} that says whether any attempt may have sent bytes.
 */
export async function generateWithRetries(loop: Loop, request: FrozenGenerateOptions, context: AttemptContext): Promise<GenerateResult> {
  const { signal } = context;
  let sent = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await loop.runtime.generate(request, context.onChunk);
    } catch (error) {
      sent ||= !isUnsent(error);
      if (signal.aborted) throw new StepFailure("aborted", error, sent);
      if (!(error instanceof LlmError) || !error.retryable || attempt > loop.settings.retry.maxRetries) throw new StepFailure("error", error, sent);
      const delayMs = retryDelayMs(loop.settings.retry, attempt, error);
      await loop.log.append(requestRetryEvent.input({ turn: context.turn, step: context.step, attempt, delayMs, error: loggedError(error) }));
      await sleep(delayMs, signal).catch((aborted: unknown) => {
        throw new StepFailure("aborted", aborted, sent);
      });
    }
  }
}
