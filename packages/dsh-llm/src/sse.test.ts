import { describe, expect, it } from "vitest";
import { LlmError } from "./errors.js";
import { SSE_LIMITS, readSseStream, sseObject, type SseFold } from "./sse.js";
import type { StreamChunk } from "./stream.js";

/** A body that sends `parts` as separate reads, then closes (or stays open when `hang`). */
function body(parts: readonly string[], hang = false): ReadableStream<Uint8Array> {
  const bytes = parts.map((part) => new TextEncoder().encode(part));
  return new ReadableStream({
    pull(controller) {
      const next = bytes.shift();
      if (next !== undefined) controller.enqueue(next);
      else if (!hang) controller.close();
    },
  });
}

/** A toy dialect: `t:` text, `f` finish (answer whole), `end` done, `bad` a malformed event. */
class ToyFold implements SseFold {
  done = false;
  complete = false;
  readonly seen: string[] = [];

  constructor(private readonly doneAtFinish: boolean) {}

  fold(data: string): StreamChunk[] {
    this.seen.push(data);
    if (data === "bad") throw new LlmError("LLM_MALFORMED_STREAM", "bad event");
    if (data === "end") {
      this.done = true;
      return [];
    }
    if (data === "f") {
      this.complete = true;
      this.done ||= this.doneAtFinish;
      return [{ type: "finish", reason: "stop" }];
    }
    return [{ type: "text-delta", text: data.slice(2) }];
  }
}

async function collect(stream: AsyncGenerator<StreamChunk>): Promise<StreamChunk[]> {
  const out: StreamChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

describe("readSseStream", () => {
  it("yields each event's chunks, with events split across reads, and ignores what comes after the last event", async () => {
    const fold = new ToyFold(false);
    const chunks = await collect(readSseStream(body(["data: t:he", "llo\n\ndata: f\n\n", "data: t:late\n\ndata: end\n\ndata: t:after\n\n"]), 1_000, fold, "the end"));
    expect(chunks).toEqual([{ type: "text-delta", text: "hello" }, { type: "finish", reason: "stop" }, { type: "text-delta", text: "late" }]);
    expect(fold.seen).toEqual(["t:hello", "f", "t:late", "end"]);
  });

  it("decodes a character whose bytes arrive in two reads", async () => {
    const bytes = new TextEncoder().encode("data: t:né\n\ndata: f\n\n");
    const split = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.subarray(0, split));
        controller.enqueue(bytes.subarray(split));
        controller.close();
      },
    });
    expect(await collect(readSseStream(body, 1_000, new ToyFold(false), "x"))).toEqual([{ type: "text-delta", text: "né" }, { type: "finish", reason: "stop" }]);
  });

  it("stops reading once the fold is done, without waiting for the body to close", async () => {
    const chunks = await collect(readSseStream(body(["data: t:a\n\ndata: f\n\n"], true), 1_000, new ToyFold(true), "the end"));
    expect(chunks.map((chunk) => chunk.type)).toEqual(["text-delta", "finish"]);
  });

  it("is LLM_STREAM_INTERRUPTED when the body ends before the answer is whole, naming what it waited for", async () => {
    const stream = readSseStream(body(["data: t:a\n\n"]), 1_000, new ToyFold(false), "the model finished");
    await expect(collect(stream)).rejects.toMatchObject({ code: "LLM_STREAM_INTERRUPTED", retryable: true, message: "the stream ended before the model finished" });
  });

  it("accepts a body that closes after a whole answer without the last event", async () => {
    expect(await collect(readSseStream(body(["data: f\n\n"]), 1_000, new ToyFold(false), "x"))).toEqual([{ type: "finish", reason: "stop" }]);
  });

  it("fails with the fold's first error and folds nothing after it", async () => {
    const fold = new ToyFold(false);
    const stream = readSseStream(body(["data: t:a\n\ndata: bad\n\ndata: t:b\n\n"]), 1_000, fold, "x");
    await expect(collect(stream)).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "bad event" });
    expect(fold.seen).toEqual(["t:a", "bad"]);
  });

  it("stops reading an answer over its limits, naming what it refused: its bytes, one event's bytes, its time", async () => {
    const limits = { maxBodyBytes: 100, maxEventBytes: 30, deadlineMs: 60_000 };
    const read = (parts: readonly string[], hang = false, at = limits) => collect(readSseStream(body(parts, hang), 5_000, new ToyFold(true), "x", at));
    // Events of 13 bytes each, 130 bytes in all.
    const small = Array.from({ length: 10 }, () => "data: t:abc\n\n");
    await expect(read(small)).rejects.toMatchObject({ code: "LLM_RESPONSE_TOO_LARGE", retryable: false, message: "the answer is over 100 bytes: dsh stopped reading it" });
    expect(await read([...small.slice(0, 6), "data: f\n\n"])).toHaveLength(7);
    // One event that never ends, in reads that each fit the limit.
    await expect(read(["data: t:", "x".repeat(20), "x".repeat(20)], true)).rejects.toMatchObject({ code: "LLM_RESPONSE_TOO_LARGE", retryable: false, message: "one event of the answer is over 30 bytes: dsh stopped reading it" });
    expect(await read(["data: t:", "x".repeat(20), "\n\n", "data: t:", "x".repeat(20), "\n\ndata: f\n\n"])).toHaveLength(3);
    // A trickle that never goes silent long enough for the idle timeout, past the deadline.
    let cancelled = false;
    const trickle = new ReadableStream<Uint8Array>({
      pull: (controller) => new Promise<void>((resolve) => setTimeout(() => resolve(cancelled ? undefined : controller.enqueue(new TextEncoder().encode(": still here\n"))), 5)),
      cancel: () => void (cancelled = true),
    });
    await expect(collect(readSseStream(trickle, 5_000, new ToyFold(true), "x", { maxBodyBytes: 1e9, maxEventBytes: 1e9, deadlineMs: 100 }))).rejects.toMatchObject({
      code: "LLM_TIMEOUT",
      retryable: false,
      message: "the answer was still arriving after 100 ms: dsh stopped reading it",
    });
    expect(cancelled).toBe(true);
    // A body that goes silent before a deadline nearer than the idle timeout is late, not idle.
    const silent = new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) });
    await expect(collect(readSseStream(silent, 60_000, new ToyFold(true), "x", { ...limits, deadlineMs: 30 }))).rejects.toMatchObject({ code: "LLM_TIMEOUT", retryable: false, message: "the answer was still arriving after 30 ms: dsh stopped reading it" });
    // A stream whose every read is ready at once, so no timer can interrupt it, stops at the deadline too.
    const flood = new ReadableStream<Uint8Array>({ pull: (controller) => controller.enqueue(new TextEncoder().encode(": more\n")) });
    await expect(collect(readSseStream(flood, 5_000, new ToyFold(true), "x", { maxBodyBytes: 1e12, maxEventBytes: 1e12, deadlineMs: 50 }))).rejects.toMatchObject({ code: "LLM_TIMEOUT", retryable: false });
    // Exactly at the limits is within them; a size of a mebibyte or more is said in MiB.
    const exact = ["data: t:ab\n\n", "data: f\n\n"];
    expect(await read(exact, false, { maxBodyBytes: 21, maxEventBytes: 12, deadlineMs: 60_000 })).toHaveLength(2);
    await expect(read(["data: t:", "x".repeat(1_600_000)], true, { maxBodyBytes: 1.5 * 2 ** 20, maxEventBytes: 2 ** 30, deadlineMs: 60_000 })).rejects.toMatchObject({ message: "the answer is over 1.5 MiB: dsh stopped reading it" });
    await expect(read(["data: t:", "x".repeat(1_100_000)], true, { maxBodyBytes: 2 ** 30, maxEventBytes: 2 ** 20, deadlineMs: 60_000 })).rejects.toMatchObject({ message: "one event of the answer is over 1 MiB: dsh stopped reading it" });
  });

  it("reads within an hour, 256 MiB and 16 MiB for one event unless told", () => {
    expect(SSE_LIMITS).toEqual({ maxBodyBytes: 268_435_456, maxEventBytes: 16_777_216, deadlineMs: 3_600_000 });
    expect(Object.isFrozen(SSE_LIMITS)).toBe(true);
  });

  it("is LLM_TIMEOUT when the provider goes silent, and cancels the body", async () => {
    let cancelled = false;
    const silent = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    await expect(collect(readSseStream(silent, 20, new ToyFold(false), "x"))).rejects.toMatchObject({ code: "LLM_TIMEOUT", retryable: true, message: "no data from the provider for 20 ms" });
    expect(cancelled).toBe(true);
  });
});

describe("sseObject", () => {
  it("reads an event's data as a JSON object and names anything else malformed, quoting its start", () => {
    expect(sseObject<{ a: number }>('{"a":1}', "event")).toEqual({ a: 1 });
    expect(() => sseObject("{nope", "chunk")).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: "unreadable stream chunk: {nope" }));
    for (const data of ["[1]", "null", "3", '"x"']) {
      expect(() => sseObject(data, "event")).toThrowError(expect.objectContaining({ code: "LLM_MALFORMED_STREAM", message: `a stream event is not an object: ${data}` }));
    }
    expect(() => sseObject(`{${"x".repeat(200)}`, "event")).toThrowError(expect.objectContaining({ message: `unreadable stream event: {${"x".repeat(79)}` }));
  });
});
