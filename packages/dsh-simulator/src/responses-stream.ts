import { pieces } from "./messages-stream.js";
import { tokenize } from "./prompt.js";
import { encryptReasoning } from "./responses-prompt.js";
import type { ScriptedResponse } from "./scenario.js";

/** What one Responses answer is served from besides its script. */
export interface ResponsesAnswer {
  readonly id: string;
  readonly model: string;
  /** Prefix of every item id of this answer (a digest of what the model read). */
  readonly key: string;
  readonly thinking: boolean;
  /** Whether the request asked for reasoning summaries (`reasoning.summary`). */
  readonly summary: boolean;
  readonly promptTokens: number;
  readonly cachedTokens: number;
  /** The billed cache writes (GPT-5.6 and later), reported as `cache_write_tokens`; absent for earlier models. */
  readonly cacheWriteTokens?: number | undefined;
  /** Extra fields of the final response object (the prompt-cache diagnostics, when asked for). */
  readonly extra?: object;
}

function frame(type: string, data: object, sequence: { n: number }): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence.n++, ...data })}\n\n`;
}

/**
 * The SSE frames of a Responses answer: `response.created`, then each output item (`added`, its
 * deltas, `done`): reasoning (`rs_{key}`, encrypted content the simulator can verify on the way
 * back), the message (`msg_{key}`) and function calls (`fc_{key}_{i}`, with `_rs` when they follow
 * reasoning and so need it back), then `response.completed` (or `response.incomplete` when the script
 * stops at the length limit) with usage. An `overloaded` fault ends with an `error` event instead.
 */
export function responsesFrames(answer: ResponsesAnswer, scripted: ScriptedResponse): string[] {
  const sequence = { n: 0 };
  const { id, model, key } = answer;
  const base = { id, object: "response", model, store: false };
  const frames = [frame("response.created", { response: { ...base, status: "in_progress", output: [] } }, sequence)];
  const output: object[] = [];
  const add = (item: object, deltas: string[] = []) => {
    const index = output.length;
    frames.push(frame("response.output_item.added", { output_index: index, item }, sequence), ...deltas);
    return index;
  };
  const done = (index: number, item: object) => {
    output.push(item);
    frames.push(frame("response.output_item.done", { output_index: index, item }, sequence));
  };
  const reasoning = answer.thinking ? (scripted.reasoning ?? "") || "Let me work out the next step." : "";
  if (answer.thinking) {
    const item = { id: `rs_${key}`, type: "reasoning", summary: answer.summary ? [{ type: "summary_text", text: reasoning }] : [], encrypted_content: encryptReasoning(`rs_${key}`, reasoning) };
    done(add({ id: item.id, type: "reasoning", summary: [] }), item);
  }
  const text = scripted.text ?? "";
  if (text !== "") {
    const msg = `msg_${key}`;
    const index = add({ id: msg, type: "message", status: "in_progress", role: "assistant", content: [] });
    const status = scripted.finishReason === "length" ? "incomplete" : "completed";
    for (const piece of pieces(text)) frames.push(frame("response.output_text.delta", { item_id: msg, output_index: index, content_index: 0, delta: piece }, sequence));
    frames.push(frame("response.output_text.done", { item_id: msg, output_index: index, content_index: 0, text }, sequence));
    done(index, { id: msg, type: "message", status, role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text }] });
  }
  (scripted.toolCalls ?? []).forEach((call, i) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    const item = { id: `fc_${key}_${i}${answer.thinking ? "_rs" : ""}`, type: "function_call", status: "completed", arguments: args, call_id: `call_${key}_${i}`, name: call.name };
    const index = add({ ...item, status: "in_progress", arguments: "" });
    for (const piece of pieces(args)) frames.push(frame("response.function_call_arguments.delta", { item_id: item.id, output_index: index, delta: piece }, sequence));
    done(index, item);
  });
  if (scripted.fault === "overloaded") return [...frames, frame("error", { code: "server_error", message: "The server is overloaded." }, sequence)];
  const outputTokens = tokenize(reasoning + text + (scripted.toolCalls ?? []).map((call) => call.name + JSON.stringify(call.arguments)).join("")).length;
  const usage = {
    input_tokens: answer.promptTokens,
    input_tokens_details: { cached_tokens: answer.cachedTokens, ...(answer.cacheWriteTokens === undefined ? {} : { cache_write_tokens: answer.cacheWriteTokens }) },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: tokenize(reasoning).length },
    total_tokens: answer.promptTokens + outputTokens,
  };
  const incomplete = scripted.finishReason === "length";
  const response = { ...base, status: incomplete ? "incomplete" : "completed", ...(incomplete ? { incomplete_details: { reason: "max_output_tokens" } } : {}), output, usage, ...answer.extra };
  frames.push(frame(incomplete ? "response.incomplete" : "response.completed", { response }, sequence));
  return frames;
}
