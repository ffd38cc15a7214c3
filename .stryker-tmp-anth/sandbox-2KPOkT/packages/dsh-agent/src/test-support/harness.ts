import { LlmRuntime, type FrozenGenerateOptions, type LlmCallConfig } from "dsh-llm";
import { EventLog } from "dsh-log";
import { z } from "zod";
import { Agent, type AgentOptions } from "../agent.js";
import { createAgentRegistry } from "../register.js";
import { defineTool } from "../tools.js";
import { ScriptedAdapter, type ScriptedAnswer } from "./scripted-adapter.js";

export const baseConfig: LlmCallConfig = { provider: "scripted", model: "model-a" };

export const echoTool = defineTool({
  name: "echo",
  description: "Echo the text back",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

/** An agent over an in-memory log and a scripted adapter. */
export function harness(
  script: (request: FrozenGenerateOptions, index: number) => ScriptedAnswer,
  options: Partial<AgentOptions> = {},
) {
  const adapter = new ScriptedAdapter(script);
  const runtime = new LlmRuntime({ adapters: [adapter] });
  const log = options.log ?? new EventLog({ registry: createAgentRegistry() });
  const agent = new Agent({
    log,
    runtime,
    config: baseConfig,
    systemPrompt: "You are a test.",
    tools: [echoTool],
    retry: { maxRetries: 2, baseDelayMs: 0, maxDelayMs: 0 },
    ...options,
  });
  return { adapter, runtime, log, agent };
}

/** The event types of a log, in order, without the noise of step numbers. */
export function types(log: EventLog): string[] {
  return log.slice().map((event) => event.type);
}

/** The serializable part of a request, for comparisons (the signal is not model-visible). */
export function body(request: FrozenGenerateOptions) {
  const { signal: _signal, ...rest } = request;
  return rest;
}
