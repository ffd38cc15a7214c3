import { describe, expect, it } from "vitest";
import { pieces } from "./messages-stream.js";
import { tokenize } from "./prompt.js";
import { encryptReasoning } from "./responses-prompt.js";
import { responsesFrames, type ResponsesAnswer } from "./responses-stream.js";

/** The frames as `[event, data]` pairs, each checked to name its event in its data and to number it in order. */
function events(frames: readonly string[]): [string, Record<string, unknown>][] {
  return frames.map((text, index) => {
    const match = /^event: (\S+)\ndata: (.*)\n\n$/s.exec(text);
    if (match === null) throw new Error(`not an SSE frame: ${text}`);
    const { type, sequence_number, ...data } = JSON.parse(match[2]!) as Record<string, unknown>;
    expect([type, sequence_number]).toEqual([match[1], index]);
    return [match[1]!, data];
  });
}

const answer: ResponsesAnswer = { id: "resp_1", model: "gpt-x", key: "k", thinking: true, summary: true, promptTokens: 200, cachedTokens: 128 };
const base = { id: "resp_1", object: "response", model: "gpt-x", store: false };

describe("responsesFrames", () => {
  it("streams reasoning with its encrypted content, the message in pieces and each call's arguments, then the completed response with usage", () => {
    const reasoning = "Which of the two files holds the answer?";
    const text = "Reading the longer of the two files now.";
    const args = { path: "a-rather-long-file-name.txt" };
    const json = JSON.stringify(args);
    const reasoningItem = { id: "rs_k", type: "reasoning", summary: [{ type: "summary_text", text: reasoning }], encrypted_content: encryptReasoning("rs_k", reasoning) };
    const message = { id: "msg_k", type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", annotations: [], logprobs: [], text }] };
    const call = (i: number, name: string, argsText: string) => ({ id: `fc_k_${i}_rs`, type: "function_call", status: "completed", arguments: argsText, call_id: `call_k_${i}`, name });
    const output = [reasoningItem, message, call(0, "read_file", json), call(1, "list_dir", "{}")];
    const outputTokens = tokenize(`${reasoning}${text}read_file${json}list_dir"{}"`).length;
    expect(events(responsesFrames({ ...answer, extra: { prompt_cache_diagnostics: { reason: "none" } } }, { reasoning, text, toolCalls: [{ name: "read_file", arguments: args }, { name: "list_dir", arguments: "{}" }] }))).toEqual([
      ["response.created", { response: { ...base, status: "in_progress", output: [] } }],
      ["response.output_item.added", { output_index: 0, item: { id: "rs_k", type: "reasoning", summary: [] } }],
      ["response.output_item.done", { output_index: 0, item: reasoningItem }],
      ["response.output_item.added", { output_index: 1, item: { id: "msg_k", type: "message", status: "in_progress", role: "assistant", content: [] } }],
      ...pieces(text).map((delta): [string, Record<string, unknown>] => ["response.output_text.delta", { item_id: "msg_k", output_index: 1, content_index: 0, delta }]),
      ["response.output_text.done", { item_id: "msg_k", output_index: 1, content_index: 0, text }],
      ["response.output_item.done", { output_index: 1, item: message }],
      ["response.output_item.added", { output_index: 2, item: { ...call(0, "read_file", json), status: "in_progress", arguments: "" } }],
      ...pieces(json).map((delta): [string, Record<string, unknown>] => ["response.function_call_arguments.delta", { item_id: "fc_k_0_rs", output_index: 2, delta }]),
      ["response.output_item.done", { output_index: 2, item: call(0, "read_file", json) }],
      ["response.output_item.added", { output_index: 3, item: { ...call(1, "list_dir", "{}"), status: "in_progress", arguments: "" } }],
      ["response.function_call_arguments.delta", { item_id: "fc_k_1_rs", output_index: 3, delta: "{}" }],
      ["response.output_item.done", { output_index: 3, item: call(1, "list_dir", "{}") }],
      [
        "response.completed",
        {
          response: {
            ...base,
            status: "completed",
            output,
            usage: { input_tokens: 200, input_tokens_details: { cached_tokens: 128 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: tokenize(reasoning).length }, total_tokens: 200 + outputTokens },
            prompt_cache_diagnostics: { reason: "none" },
          },
        },
      ],
    ]);
    expect(pieces(text).length).toBeGreaterThan(1);
  });

  it("gives a model without thinking no reasoning item and calls ids without `_rs`, and thinks aloud by default when the script gives no reasoning", () => {
    const plain = events(responsesFrames({ ...answer, thinking: false }, { toolCalls: [{ name: "f", arguments: "{}" }] }));
    expect(plain.map(([type]) => type)).toEqual(["response.created", "response.output_item.added", "response.function_call_arguments.delta", "response.output_item.done", "response.completed"]);
    expect((plain[3]![1].item as { id: string }).id).toBe("fc_k_0");
    const usage = (plain.at(-1)![1].response as { usage: { output_tokens_details: unknown } }).usage;
    expect(usage.output_tokens_details).toEqual({ reasoning_tokens: 0 });
    const thinking = events(responsesFrames({ ...answer, summary: false }, { text: "" }));
    const item = thinking[2]![1].item as { summary: unknown; encrypted_content: string };
    expect(item).toEqual({ id: "rs_k", type: "reasoning", summary: [], encrypted_content: encryptReasoning("rs_k", "Let me work out the next step.") });
    expect(thinking.map(([type]) => type)).not.toContain("response.output_text.delta");
  });

  it("ends an answer cut at the length limit as incomplete, and an overloaded one with an error", () => {
    const cut = events(responsesFrames({ ...answer, thinking: false }, { text: "Partial", finishReason: "length" }));
    const message = cut.find(([type, data]) => type === "response.output_item.done" && (data.item as { type: string }).type === "message")![1].item as { status: string };
    expect(message.status).toBe("incomplete");
    const [type, data] = cut.at(-1)!;
    expect(type).toBe("response.incomplete");
    expect(data.response).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    const whole = events(responsesFrames({ ...answer, thinking: false }, { text: "Whole" })).at(-1)![1].response as Record<string, unknown>;
    expect(whole.status).toBe("completed");
    expect(whole.usage).toEqual({ input_tokens: 200, input_tokens_details: { cached_tokens: 128 }, output_tokens: tokenize("Whole").length, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 200 + tokenize("Whole").length });
    expect("incomplete_details" in whole).toBe(false);
    const overloaded = events(responsesFrames(answer, { text: "x", fault: "overloaded" }));
    expect(overloaded.at(-1)).toEqual(["error", { code: "server_error", message: "The server is overloaded." }]);
    expect(overloaded.map(([name]) => name)).not.toContain("response.completed");
  });
});
