import { Agent, createAgentRegistry, defineTool, reconstructRequests, type ReconstructedRequest } from "dsh-agent";
import { LlmRuntime, type FrozenGenerateOptions, type LlmAdapter, type StreamChunk } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { z } from "zod";

/** A model that calls `echo` once per user message, then answers, reporting usage with cache reads. */
export const echoModel: LlmAdapter = {
  provider: "scripted",
  async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    const last = request.messages.at(-1)!;
    const usage = { inputTokens: 100 * request.messages.length, outputTokens: 5, cacheReadTokens: 50 * (request.messages.length - 2), cacheWriteTokens: 0 };
    if (last.role === "user") yield { type: "tool-call-delta", index: 0, callId: `c${request.messages.length}`, name: "echo", argumentsDelta: '{"text":"hi"}' };
    else yield { type: "text-delta", text: "done" };
    yield { type: "usage", usage };
    yield { type: "finish", reason: last.role === "user" ? "tool-calls" : "stop" };
  },
};

const echo = defineTool({ name: "echo", description: "Echo", parameters: z.object({ text: z.string() }), execute: ({ text }) => text });

/** Two turns on one model, then a third on another (a break), with `trim` trimming tool results between them. */
export async function sampleSession(): Promise<{ events: readonly LogEvent[]; requests: ReconstructedRequest[] }> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const runtime = new LlmRuntime({ adapters: [echoModel] });
  const agent = new Agent({ log, runtime, config: { provider: "scripted", model: "a" }, systemPrompt: "Be brief.", tools: [echo] });
  await agent.run("one");
  await agent.trimToolResults({ maxChars: 1, keepRecent: 1 });
  await agent.run("two");
  agent.reconfigure({ provider: "scripted", model: "b" });
  await agent.run("three");
  return { events: log.slice(), requests: await reconstructRequests(log) };
}
