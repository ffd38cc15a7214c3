import { describe, expect, it } from "vitest";
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
});
