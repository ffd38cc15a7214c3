import { LlmRuntime, freezeRequest, isDeepFrozen } from "dsh-llm";
import { startSimulator } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "./adapter.js";
import { BREAKPOINT_POLICIES, rollingPolicy } from "./breakpoints.js";
import { CLAUDE_MODELS, type ClaudeCatalog } from "./catalog.js";
import { serializeRequest } from "./serialize.js";
import { toolSessionRequest } from "./test-support/session.js";

describe("the tables the serializer consults", () => {
  it("are frozen: code running in the process cannot swap a policy or a model mid-session", () => {
    expect(isDeepFrozen(CLAUDE_MODELS)).toBe(true);
    expect(Object.isFrozen(BREAKPOINT_POLICIES)).toBe(true);
    expect(() => {
      (BREAKPOINT_POLICIES as Record<string, unknown>)["rolling-v1"] = () => [];
    }).toThrow(TypeError);
    expect(() => {
      (CLAUDE_MODELS.models["claude-sonnet-4-6"] as { thinking: string }).thinking = "budget";
    }).toThrow(TypeError);
    expect(BREAKPOINT_POLICIES["rolling-v1"]).toBe(rollingPolicy);
  });

  it("are held by value: a caller's catalog changed after the adapter was made changes nothing sent", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "one" }, { text: "two" }] } });
    try {
      const catalog = structuredClone(CLAUDE_MODELS) as { models: Record<string, { thinking: string }> };
      const adapter = new AnthropicAdapter({ baseUrl: sim.origin, catalog: catalog as unknown as ClaudeCatalog });
      const runtime = new LlmRuntime({ adapters: [adapter] });
      const request = freezeRequest({ ...toolSessionRequest([]), config: { ...toolSessionRequest([]).config, reasoningEffort: "low" } });
      await runtime.generate(request);
      catalog.models["claude-sonnet-4-6"]!.thinking = "budget";
      await runtime.generate(request);
      const [first, second] = sim.exchanges;
      expect(second!.body).toBe(first!.body);
      expect(first!.body).toBe(await serializeRequest(request));
    } finally {
      await sim.close();
    }
  });
});
