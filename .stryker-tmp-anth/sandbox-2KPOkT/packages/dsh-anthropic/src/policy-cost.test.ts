import { LlmRuntime, freezeRequest, type AssistantContent, type Message } from "dsh-llm";
import { renderMessagesPrompt, startSimulator, type MessagesBody, type ScriptedResponse } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "./adapter.js";

/** A loop by hand: `steps` tool steps (some calling many tools at once) through the simulator under one policy. */
async function session(cachePolicy: string, steps: number) {
  const responses: ScriptedResponse[] = Array.from({ length: steps }, (_, s) => ({
    reasoning: `step ${s}`,
    toolCalls: Array.from({ length: s === 5 || s === 14 ? 12 : 1 }, (_, c) => ({ name: "lookup", arguments: { key: `${s}-${c}` } })),
  }));
  const sim = await startSimulator({ scenario: { responses } });
  try {
    const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin })] });
    const messages: Message[] = [
      { role: "system", content: "Check every value with lookup. ".repeat(300), source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "Check them all." }], source: "user" },
    ];
    const tools = [{ name: "lookup", description: "Look a key up", parameters: { type: "object" } }];
    for (let s = 0; s < steps; s++) {
      const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 2048, reasoningEffort: "low", cachePolicy, cacheTtl: "5m" } as const;
      const answer = await runtime.generate(freezeRequest(structuredClone({ config, messages, tools })));
      messages.push({ role: "assistant", content: answer.content, source: "model" });
      for (const call of answer.content.filter((block): block is Extract<AssistantContent, { type: "tool-call" }> => block.type === "tool-call")) {
        messages.push({ role: "tool", callId: call.callId, toolName: call.name, content: [{ type: "text", text: `value of ${call.arguments}` }], isError: false, source: "tool" });
      }
    }
    const prompts = sim.exchanges.map((exchange) => renderMessagesPrompt(JSON.parse(exchange.body) as MessagesBody));
    // What explicit caching can read at all: the block prefix each request shares with the one before.
    const ceiling = prompts.slice(1).reduce((total, blocks, i) => {
      let shared = 0;
      for (let b = 0; b < blocks.length && blocks[b]!.prefixKey === prompts[i]![b]?.prefixKey; b++) shared = blocks[b]!.cumulativeTokens;
      return total + shared;
    }, 0);
    const read = sim.exchanges.reduce((total, exchange) => total + exchange.cacheHitTokens, 0);
    const written = sim.exchanges.reduce((total, exchange) => total + exchange.cacheWriteTokens, 0);
    const prompt = sim.exchanges.reduce((total, exchange) => total + exchange.promptTokens, 0);
    return { ceiling, read, cost: prompt - read - written + 1.25 * written + 0.1 * read };
  } finally {
    await sim.close();
  }
}

describe("rolling-v1 against the common policy, on the simulator's explicit cache", () => {
  it("reads everything explicit caching can read, including after steps that add more than 20 blocks, and costs less", async () => {
    const ours = await session("rolling-v1", 16);
    const common = await session("system-and-last-user-v1", 16);
    expect(ours.ceiling).toBe(common.ceiling);
    expect(ours.read).toBe(ours.ceiling);
    expect(common.read).toBeLessThan(common.ceiling);
    expect(ours.cost).toBeLessThan(common.cost);
  });
});
