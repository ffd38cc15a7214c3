import { describe, expect, it } from "vitest";
import type { LlmAdapter } from "./adapter.js";
import { LlmRuntime, type LlmStreamEvent } from "./runtime.js";
import { freezeRequest, markAgentLoopRequest, type FrozenGenerateOptions, type GenerateOptions } from "./request.js";

function echoAdapter(seen: FrozenGenerateOptions[] = []): LlmAdapter {
  return {
    provider: "echo",
    async *stream(request) {
      seen.push(request);
      const last = request.messages.at(-1);
      yield { type: "text-delta", text: last?.role === "user" && last.content[0]?.type === "text" ? last.content[0].text : "" };
      yield { type: "finish", reason: "stop" };
    },
    modelDefaults: () => ({ maxTokens: 4096 }),
  };
}

function request(): GenerateOptions {
  return {
    config: { provider: "echo", model: "m" },
    messages: [{ role: "user", content: [{ type: "text", text: "ping" }], source: "user" }],
  };
}

describe("LlmRuntime", () => {
  it("dispatches to the adapter of config.provider and assembles the answer", async () => {
    const runtime = new LlmRuntime({ adapters: [echoAdapter()] });
    const result = await runtime.generate(request());
    expect(result.content).toEqual([{ type: "text", text: "ping" }]);
    expect(runtime.modelDefaults("echo", "m")).toEqual({ maxTokens: 4096 });
  });

  it("fails with LLM_NO_ADAPTER for an unknown provider, naming the registered ones", async () => {
    const runtime = new LlmRuntime();
    await expect(runtime.generate(request())).rejects.toThrowError(
      expect.objectContaining({ code: "LLM_NO_ADAPTER", message: "no adapter for provider echo (registered: none)" }),
    );
    runtime.register({ ...echoAdapter(), provider: "a" });
    runtime.register({ ...echoAdapter(), provider: "b" });
    expect(() => runtime.modelDefaults("echo", "m")).toThrowError("no adapter for provider echo (registered: a, b)");
  });

  it("registers adapters later, one per provider", async () => {
    const runtime = new LlmRuntime();
    runtime.register(echoAdapter());
    await expect(runtime.generate(request())).resolves.toMatchObject({ finishReason: "stop" });
    expect(() => runtime.register(echoAdapter())).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", message: "an adapter for provider echo is already registered" }),
    );
  });

  it("reports empty defaults for an adapter that declares none, and refuses unknown events", () => {
    const { modelDefaults: _none, ...plain } = echoAdapter();
    const runtime = new LlmRuntime({ adapters: [plain] });
    expect(runtime.modelDefaults("echo", "m")).toEqual({});
    expect(() => runtime.on("llm/other" as "llm/stream", () => undefined)).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", message: "unknown runtime event llm/other" }),
    );
  });

  it("hands the adapter its attachment store and the request's signal", async () => {
    const contexts: unknown[] = [];
    const store = { put: async () => "sha256:x", get: async () => new Uint8Array(), has: async () => false } as never;
    const adapter: LlmAdapter = {
      provider: "echo",
      async *stream(_request, context) {
        contexts.push(context);
        yield { type: "finish", reason: "stop" };
      },
    };
    const signal = new AbortController().signal;
    await new LlmRuntime({ adapters: [adapter], attachments: store }).generate({ ...request(), signal });
    expect(contexts).toEqual([{ attachments: store, signal }]);
  });

  it("lets llm/stream listeners read but never mutate the request", async () => {
    const seen: FrozenGenerateOptions[] = [];
    const runtime = new LlmRuntime({ adapters: [echoAdapter(seen)] });
    const events: LlmStreamEvent[] = [];
    const mutations: unknown[] = [];
    runtime.on("llm/stream", (event) => {
      events.push(event);
      try {
        (event.request.config as { model: string }).model = "swapped";
      } catch (error) {
        mutations.push(error);
      }
    });
    const loop = markAgentLoopRequest(freezeRequest(request()));
    await runtime.generate(loop);
    await runtime.generate(request());
    expect(events.map((event) => event.isAgentLoopRequest)).toEqual([true, false]);
    expect(Object.isFrozen(events[0])).toBe(true);
    expect(mutations).toHaveLength(2);
    expect(mutations[0]).toBeInstanceOf(TypeError);
    expect(seen[0]).toBe(loop);
    expect(seen[0]?.config.model).toBe("m");
  });

  it("stops listening after unsubscribe", async () => {
    const runtime = new LlmRuntime({ adapters: [echoAdapter()] });
    let calls = 0;
    const off = runtime.on("llm/stream", () => calls++);
    await runtime.generate(request());
    off();
    await runtime.generate(request());
    expect(calls).toBe(1);
  });

  it("does not dispatch an already aborted request", async () => {
    const seen: FrozenGenerateOptions[] = [];
    const runtime = new LlmRuntime({ adapters: [echoAdapter(seen)] });
    const controller = new AbortController();
    controller.abort();
    await expect(runtime.generate({ ...request(), signal: controller.signal })).rejects.toThrowError(
      expect.objectContaining({ code: "LLM_ABORTED", message: "the request was aborted before dispatch" }),
    );
    expect(seen).toHaveLength(0);
  });
});

describe("LlmRuntime.generate and the adapter's redact", () => {
  it("passes a failure found after the stream (an answer quoting the key as two tool-call ids) through the adapter's redact", async () => {
    const key = "sk-echoed-0123456789abcdef";
    const adapter: LlmAdapter = {
      provider: "echo",
      redact: (text) => text.split(key).join("[redacted]"),
      async *stream() {
        yield { type: "tool-call-delta", index: 0, callId: key, name: "t", argumentsDelta: "{}" };
        yield { type: "tool-call-delta", index: 1, callId: key, name: "t", argumentsDelta: "{}" };
        yield { type: "finish", reason: "tool-calls" };
      },
    };
    const request = { config: { provider: "echo", model: "m" }, messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }], source: "user" }] };
    await expect(new LlmRuntime({ adapters: [adapter] }).generate(request)).rejects.toMatchObject({ code: "LLM_MALFORMED_STREAM", message: "stream produced two tool calls with id [redacted]" });
    const { redact: _redact, ...plain } = adapter;
    await expect(new LlmRuntime({ adapters: [plain] }).generate(request)).rejects.toThrow(key);
  });
});
