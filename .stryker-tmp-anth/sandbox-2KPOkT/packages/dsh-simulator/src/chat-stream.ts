import { tokenize } from "./prompt.js";
import { pieces } from "./messages-stream.js";
import type { ScriptedResponse } from "./scenario.js";

/**
 * The SSE frames of a Chat Completions answer: reasoning, text and tool-call deltas (ids
 * `call_{callKey}_{index}`), then the finish reason with DeepSeek-style cache usage, then `[DONE]`.
 * An `overloaded` fault ends with an error chunk.
 */
export function chatFrames(n: number, model: string, scripted: ScriptedResponse, promptTokens: number, hit: number, callKey: string): string[] {
  const id = `chatcmpl-${n}`;
  const frame = (choice: object, usage?: object) =>
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, ...choice }], ...(usage ? { usage } : {}) })}\n\n`;
  const frames: string[] = [frame({ delta: { role: "assistant", content: "" }, finish_reason: null })];
  let completion = "";
  for (const piece of pieces(scripted.reasoning ?? "")) {
    frames.push(frame({ delta: { reasoning_content: piece }, finish_reason: null }));
    completion += piece;
  }
  const reasoningTokens = tokenize(scripted.reasoning ?? "").length;
  for (const piece of pieces(scripted.text ?? "")) {
    frames.push(frame({ delta: { content: piece }, finish_reason: null }));
    completion += piece;
  }
  (scripted.toolCalls ?? []).forEach((call, index) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const [first = "", ...rest] = pieces(args);
    frames.push(frame({ delta: { tool_calls: [{ index, id: `call_${callKey}_${index}`, type: "function", function: { name: call.name, arguments: first } }] }, finish_reason: null }));
    for (const piece of rest) frames.push(frame({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }));
    completion += call.name + args;
  });
  if (scripted.fault === "overloaded") return [...frames, `data: ${JSON.stringify({ error: { message: "Overloaded", type: "overloaded_error" } })}\n\n`];
  const completionTokens = tokenize(completion).length;
  const finish = scripted.finishReason ?? ((scripted.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_cache_hit_tokens: hit,
    prompt_cache_miss_tokens: promptTokens - hit,
    prompt_tokens_details: { cached_tokens: hit },
    ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
  frames.push(frame({ delta: {}, finish_reason: finish }, usage), "data: [DONE]\n\n");
  return frames;
}
