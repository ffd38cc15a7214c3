import { createParser, type EventSourceMessage } from "eventsource-parser";
import { truncateText } from "dsh-base";
import { LlmError } from "./errors.js";
import { readWithIdleTimeout } from "./idle-read.js";
import type { StreamChunk } from "./stream.js";

/** How one dialect turns server-sent events into chunks, for `readSseStream`. */
export interface SseFold {
  /** The chunks one event's data carries; a throw fails the stream with that error. */
  fold(data: string): readonly StreamChunk[];
  /** True once the last event has arrived: later events are ignored and reading stops. */
  readonly done: boolean;
  /** True once the answer is whole; a body that ends before is `LLM_STREAM_INTERRUPTED`. */
  readonly complete: boolean;
}

/**
 * Reads an SSE response body through a dialect's fold, yielding its chunks as they arrive. No bytes
 * for `idleTimeoutMs` is `LLM_TIMEOUT`; a body that ends before the fold is complete is
 * `LLM_STREAM_INTERRUPTED` ("the stream ended before {ending}"); both are retryable.
 */
export async function* readSseStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number, fold: SseFold, ending: string): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pending: StreamChunk[] = [];
  let failure: { readonly error: unknown } | undefined;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      if (fold.done || failure !== undefined) return;
      try {
        pending.push(...fold.fold(message.data));
      } catch (error) {
        failure = { error };
      }
    },
  });
  try {
    while (!fold.done) {
      const read = await readWithIdleTimeout(reader, idleTimeoutMs);
      if (read.done) break;
      parser.feed(decoder.decode(read.value, { stream: true }));
      if (failure !== undefined) throw failure.error;
      yield* pending.splice(0);
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  if (!fold.complete) throw new LlmError("LLM_STREAM_INTERRUPTED", `the stream ended before ${ending}`);
}

/**
 * One event's data as the JSON object it must be; anything else is `LLM_MALFORMED_STREAM`, quoting
 * its start and naming it as the dialect does (`event`, `chunk`).
 */
export function sseObject<T extends object>(data: string, what: string): T {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch (cause) {
    throw new LlmError("LLM_MALFORMED_STREAM", `unreadable stream ${what}: ${truncateText(data, 80)}`, { cause });
  }
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as T;
  throw new LlmError("LLM_MALFORMED_STREAM", `a stream ${what} is not an object: ${truncateText(data, 80)}`);
}
