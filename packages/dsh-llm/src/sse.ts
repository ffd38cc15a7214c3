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

/** What one answer may cost to read: its bytes, one event's bytes, and the time from its first read to its end. */
export interface SseLimits {
  readonly maxBodyBytes: number;
  readonly maxEventBytes: number;
  readonly deadlineMs: number;
}

/**
 * The bounds every answer is read within: 256 MiB in all, 16 MiB for one event, an hour in all (far
 * beyond any model's output; a provider or proxy that sends more, or trickles forever, is stopped).
 */
export const SSE_LIMITS: SseLimits = Object.freeze({ maxBodyBytes: 256 * 2 ** 20, maxEventBytes: 16 * 2 ** 20, deadlineMs: 60 * 60_000 });

/** A size as a person reads it: in MiB from one MiB up, else in bytes. */
const size = (bytes: number) => (bytes >= 2 ** 20 ? `${Math.round((bytes / 2 ** 20) * 10) / 10} MiB` : `${bytes} bytes`);

/**
 * Reads an SSE response body through a dialect's fold, yielding its chunks as they arrive. No bytes
 * for `idleTimeoutMs` is `LLM_TIMEOUT`; a body that ends before the fold is complete is
 * `LLM_STREAM_INTERRUPTED` ("the stream ended before {ending}"); both are retryable. A body or one
 * event larger than `limits` allow is `LLM_RESPONSE_TOO_LARGE`, and an answer still arriving at the
 * deadline `LLM_TIMEOUT`, neither retryable: dsh stops reading and says what it refused.
 */
export async function* readSseStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number, fold: SseFold, ending: string, limits: SseLimits = SSE_LIMITS): AsyncGenerator<StreamChunk> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const pending: StreamChunk[] = [];
  let failure: { readonly error: unknown } | undefined;
  /** Bytes read since the last event ended: one event's size, or the most of it so far. */
  let sinceEvent = 0;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      sinceEvent = 0;
      if (fold.done || failure !== undefined) return;
      try {
        pending.push(...fold.fold(message.data));
      } catch (error) {
        failure = { error };
      }
    },
  });
  const started = Date.now();
  const late = () => new LlmError("LLM_TIMEOUT", `the answer was still arriving after ${limits.deadlineMs} ms: dsh stopped reading it`, { retryable: false });
  let bytes = 0;
  try {
    while (!fold.done) {
      const left = limits.deadlineMs - (Date.now() - started);
      // Checked before each read: a stream whose reads never wait would never let a timer fire.
      if (left <= 0) throw late();
      // When the deadline is nearer than the idle timeout, its timer is the one that may fire:
      // decided by which timer ran, not by the clock, which a timer may beat by a millisecond.
      const read = await (left <= idleTimeoutMs ? readWithIdleTimeout(reader, left, late) : readWithIdleTimeout(reader, idleTimeoutMs));
      if (read.done) break;
      bytes += read.value.length;
      if (bytes > limits.maxBodyBytes) throw new LlmError("LLM_RESPONSE_TOO_LARGE", `the answer is over ${size(limits.maxBodyBytes)}: dsh stopped reading it`);
      sinceEvent += read.value.length;
      parser.feed(decoder.decode(read.value, { stream: true }));
      if (sinceEvent > limits.maxEventBytes) throw new LlmError("LLM_RESPONSE_TOO_LARGE", `one event of the answer is over ${size(limits.maxEventBytes)}: dsh stopped reading it`);
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
