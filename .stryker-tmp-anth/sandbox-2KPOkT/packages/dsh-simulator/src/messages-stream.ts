import type { CacheOutcome } from "./explicit-cache.js";
import { tokenize } from "./prompt.js";
import type { ScriptedResponse } from "./scenario.js";

const STOP_REASONS: Readonly<Record<string, string>> = { stop: "end_turn", length: "max_tokens", tool_calls: "tool_use" };

function frame(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** Splits text into the small pieces a real stream delivers. */
export function pieces(text: string): string[] {
  const characters = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < characters.length; i += 24) out.push(characters.slice(i, i + 24).join(""));
  return out;
}

/**
 * The SSE frames of a Messages API answer: `message_start` with the cache usage, then thinking (with
 * its signature), text and tool-use blocks (ids `toolu_{callKey}_{index}`), a `ping`, `message_delta` with the stop reason and the
 * cumulative usage, and `message_stop`. An `overloaded` fault ends with an `error` event instead.
 */
export function messagesFrames(id: string, model: string, scripted: ScriptedResponse, cache: CacheOutcome, signature: string | undefined, callKey: string, diagnostics?: object | null): string[] {
  const usage = {
    input_tokens: cache.uncached,
    cache_creation_input_tokens: cache.written5m + cache.written1h,
    cache_read_input_tokens: cache.read,
    cache_creation: { ephemeral_5m_input_tokens: cache.written5m, ephemeral_1h_input_tokens: cache.written1h },
  };
  const frames = [frame("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 }, ...(diagnostics === undefined ? {} : { diagnostics }) } })];
  let index = 0;
  let completion = "";
  const block = (start: object, deltas: object[]) => {
    frames.push(frame("content_block_start", { index, content_block: start }));
    for (const delta of deltas) frames.push(frame("content_block_delta", { index, delta }));
    frames.push(frame("content_block_stop", { index }));
    index++;
  };
  if (signature !== undefined) {
    const text = scripted.reasoning ?? "";
    block({ type: "thinking", thinking: "", signature: "" }, [...pieces(text).map((thinking) => ({ type: "thinking_delta", thinking })), { type: "signature_delta", signature }]);
    completion += text;
  }
  if ((scripted.text ?? "") !== "") {
    block({ type: "text", text: "" }, pieces(scripted.text!).map((text) => ({ type: "text_delta", text })));
    completion += scripted.text;
  }
  frames.push(frame("ping", {}));
  (scripted.toolCalls ?? []).forEach((call, n) => {
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    block({ type: "tool_use", id: `toolu_${callKey}_${n}`, name: call.name, input: {} }, pieces(args).map((partial_json) => ({ type: "input_json_delta", partial_json })));
    completion += call.name + args;
  });
  if (scripted.fault === "overloaded") {
    frames.push(frame("error", { error: { type: "overloaded_error", message: "Overloaded" } }));
    return frames;
  }
  const finish = scripted.finishReason ?? ((scripted.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
  frames.push(frame("message_delta", { delta: { stop_reason: STOP_REASONS[finish], stop_sequence: null }, usage: { ...usage, output_tokens: tokenize(completion).length } }));
  frames.push(frame("message_stop", {}));
  return frames;
}
