import { requestHeaderEvent } from "dsh-header";
import { toolResultEvent, assistantMessageEvent, userMessageEvent } from "dsh-surface";
import { stepEndEvent, stepStartEvent } from "dsh-agent";
const samples: [string, any, unknown][] = [
  ["tool/result", toolResultEvent.schema, { callId: "call-1", toolName: "read_file", content: [{ type: "text", text: "export const v = 1;\n" }], isError: false, source: "tool" }],
  ["assistant", assistantMessageEvent.schema, { content: [{ type: "tool-call", callId: "call-1", name: "read_file", arguments: '{"path":"x"}' }], source: "model" }],
  ["user", userMessageEvent.schema, { content: [{ type: "text", text: "hi" }], source: "user" }],
  ["step/end", stepEndEvent.schema, { turn: 1, step: 2, reason: "completed", finishReason: "tool-calls", usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 64, cacheWriteTokens: 0 } }],
  ["step/start", stepStartEvent.schema, { turn: 1, step: 2 }],
];
for (const [name, schema, data] of samples) {
  for (let i = 0; i < 20000; i++) schema.safeParse(data);
  const s = performance.now(); for (let i = 0; i < 100000; i++) schema.safeParse(data); console.log(name, ((performance.now() - s) * 10).toFixed(0), "ns");
}
