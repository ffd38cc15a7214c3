import type { GenerateOptions, Message } from "dsh-llm";

/** One model step of a made-up tool session: its thinking, calls and their results. */
export interface Step {
  readonly thinking?: string | undefined;
  readonly calls: number;
}

/** The messages after `steps` tool steps of a session, as an agent's surface holds them. */
export function toolSessionMessages(steps: readonly Step[], prompt = "You are a careful coding agent. ".repeat(20)): Message[] {
  const messages: Message[] = [
    { role: "system", content: prompt, source: "system-prompt" },
    { role: "user", content: [{ type: "text", text: "Tidy the repository." }], source: "user" },
  ];
  steps.forEach((step, s) => {
    messages.push({
      role: "assistant",
      content: [
        ...(step.thinking === undefined ? [] : [{ type: "reasoning" as const, text: step.thinking, signature: `sig-${s}` }]),
        ...Array.from({ length: step.calls }, (_, c) => ({ type: "tool-call" as const, callId: `toolu_${s}_${c}`, name: "read_file", arguments: `{"path":"f${s}-${c}.ts"}` })),
      ],
      source: "model",
    });
    for (let c = 0; c < step.calls; c++) {
      messages.push({ role: "tool", callId: `toolu_${s}_${c}`, toolName: "read_file", content: [{ type: "text", text: `contents of f${s}-${c}.ts` }], isError: false, source: "tool" });
    }
  });
  return messages;
}

/** A request over those messages with one tool and the given cache policy. */
export function toolSessionRequest(steps: readonly Step[], cachePolicy = "rolling-v1"): GenerateOptions {
  return {
    config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 4096, cachePolicy, cacheTtl: "5m" },
    messages: toolSessionMessages(steps),
    tools: [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }],
  };
}
