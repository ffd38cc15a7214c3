import { describe, expect, it } from "vitest";
import type { LlmAdapter } from "./adapter.js";
import { LlmError } from "./errors.js";
import { LlmRuntime } from "./runtime.js";
import { isUnsent, markUnsent, unsentOnFailure } from "./unsent.js";

describe("markUnsent and isUnsent", () => {
  it("mark an error object as failed before any byte was sent, and nothing else", () => {
    const error = new LlmError("LLM_INVALID_REQUEST", "no");
    expect(isUnsent(error)).toBe(false);
    expect(markUnsent(error)).toBe(error);
    expect(isUnsent(error)).toBe(true);
    expect(isUnsent(new LlmError("LLM_INVALID_REQUEST", "no"))).toBe(false);
    // A thrown value that is not an object cannot carry the mark: it counts as possibly sent.
    for (const value of ["text", 7, null, undefined]) {
      expect(markUnsent(value)).toBe(value);
      expect(isUnsent(value)).toBe(false);
    }
  });

  it("mark whatever the work before sending throws, and pass its result through", async () => {
    await expect(unsentOnFailure(async () => 5)).resolves.toBe(5);
    const failure = await unsentOnFailure(async () => {
      throw new LlmError("LLM_MODEL_RETIRED", "gone");
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "LLM_MODEL_RETIRED" });
    expect(isUnsent(failure)).toBe(true);
  });
});

describe("LlmRuntime.wireProfile", () => {
  it("is the adapter's wire profile for the model, or undefined when the adapter declares none", () => {
    const declaring: LlmAdapter = { provider: "a", wireProfile: (model) => ({ api: "x", model }), stream: async function* () {} };
    const silent: LlmAdapter = { provider: "b", stream: async function* () {} };
    const runtime = new LlmRuntime({ adapters: [declaring, silent] });
    expect(runtime.wireProfile("a", "m1")).toEqual({ api: "x", model: "m1" });
    expect(runtime.wireProfile("b", "m1")).toBeUndefined();
    expect(() => runtime.wireProfile("c", "m1")).toThrow(expect.objectContaining({ code: "LLM_NO_ADAPTER" }));
  });
});
