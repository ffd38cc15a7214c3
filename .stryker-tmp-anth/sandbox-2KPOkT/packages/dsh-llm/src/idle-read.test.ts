import { describe, expect, it, vi } from "vitest";
import { readWithIdleTimeout } from "./idle-read.js";

describe("readWithIdleTimeout", () => {
  it("returns a read that delivers, and is LLM_TIMEOUT, retryable, when no bytes come for the idle time", async () => {
    let push: ReadableStreamDefaultController<Uint8Array> | undefined;
    const reader = new ReadableStream<Uint8Array>({ start: (controller) => void (push = controller) }).getReader();
    push!.enqueue(new Uint8Array([1, 2]));
    expect(await readWithIdleTimeout(reader, 10_000)).toEqual({ done: false, value: new Uint8Array([1, 2]) });
    await expect(readWithIdleTimeout(reader, 30)).rejects.toMatchObject({ code: "LLM_TIMEOUT", retryable: true, message: "no data from the provider for 30 ms" });
    push!.close();
  });

  it("leaves no timer behind once the read delivered", async () => {
    vi.useFakeTimers();
    try {
      const reader = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array([7])) }).getReader();
      await readWithIdleTimeout(reader, 1_000);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
