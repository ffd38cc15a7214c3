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

  it("fails with LLM_NO_ADAPTER for an unknown provider", async () => {
    const runtime = new LlmRuntime();
    await expect(runtime.generate(request())).rejects.toMatchObject({ code: "LLM_NO_ADAPTER" });
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
    await expect(runtime.generate({ ...request(), signal: controller.signal })).rejects.toMatchObject({
      code: "LLM_ABORTED",
    });
    expect(seen).toHaveLength(0);
  });
});
