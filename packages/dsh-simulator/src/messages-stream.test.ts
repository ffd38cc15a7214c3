import { describe, expect, it } from "vitest";
import { messagesFrames, pieces } from "./messages-stream.js";
import { tokenize } from "./prompt.js";

const cache = { read: 100, written5m: 20, written1h: 3, uncached: 7 };
const usage = { input_tokens: 7, cache_creation_input_tokens: 23, cache_read_input_tokens: 100, cache_creation: { ephemeral_5m_input_tokens: 20, ephemeral_1h_input_tokens: 3 } };

/** The frames as `[event, data]` pairs, each checked to name its event in its data too. */
function events(frames: readonly string[]): [string, Record<string, unknown>][] {
  return frames.map((text) => {
    const match = /^event: (\S+)\ndata: (.*)\n\n$/s.exec(text);
    if (match === null) throw new Error(`not an SSE frame: ${text}`);
    const data = JSON.parse(match[2]!) as Record<string, unknown>;
    expect(data.type).toBe(match[1]);
    return [match[1]!, data];
  });
}

describe("pieces", () => {
  it("cuts text into pieces of 24 characters, never inside one", () => {
    expect(pieces("")).toEqual([]);
    expect(pieces("a".repeat(50))).toEqual(["a".repeat(24), "a".repeat(24), "aa"]);
    const astral = "𝄞".repeat(25);
    expect(pieces(astral)).toEqual(["𝄞".repeat(24), "𝄞"]);
  });
});

describe("messagesFrames", () => {
  it("streams the usage, then thinking with its signature, text, a ping and tool uses, then the stop reason with the output's tokens", () => {
    const args = { path: "a-rather-long-file-name.txt" };
    const frames = events(messagesFrames("msg_1", "claude-x", { reasoning: "Think about which file holds the answer.", text: "Reading.", toolCalls: [{ name: "read_file", arguments: args }, { name: "list_dir", arguments: "{}" }] }, cache, "sig", "k"));
    const json = JSON.stringify(args);
    expect(frames).toEqual([
      ["message_start", { type: "message_start", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-x", content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
      ...pieces("Think about which file holds the answer.").map((thinking): [string, Record<string, unknown>] => ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking } }]),
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Reading." } }],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      ["ping", { type: "ping" }],
      ["content_block_start", { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_k_0", name: "read_file", input: {} } }],
      ...pieces(json).map((partial_json): [string, Record<string, unknown>] => ["content_block_delta", { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json } }]),
      ["content_block_stop", { type: "content_block_stop", index: 2 }],
      ["content_block_start", { type: "content_block_start", index: 3, content_block: { type: "tool_use", id: "toolu_k_1", name: "list_dir", input: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: "{}" } }],
      ["content_block_stop", { type: "content_block_stop", index: 3 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { ...usage, output_tokens: tokenize(`Think about which file holds the answer.Reading.read_file${json}list_dir{}`).length } }],
      ["message_stop", { type: "message_stop" }],
    ]);
    expect(pieces(json).length).toBeGreaterThan(1);
  });

  it("sends no thinking block without a signature and no text block for empty text, and maps each finish reason", () => {
    const plain = events(messagesFrames("m", "c", { text: "" }, cache, undefined, "k"));
    expect(plain.map(([type]) => type)).toEqual(["message_start", "ping", "message_delta", "message_stop"]);
    expect(plain[2]![1]).toEqual({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { ...usage, output_tokens: 0 } });
    const stop = (finishReason: "stop" | "length" | "tool_calls") => (events(messagesFrames("m", "c", { text: "x", finishReason }, cache, undefined, "k")).at(-2)![1].delta as { stop_reason: string }).stop_reason;
    expect([stop("stop"), stop("length"), stop("tool_calls")]).toEqual(["end_turn", "max_tokens", "tool_use"]);
    // A thinking model that gave no reasoning still sends its (empty) thinking and signature.
    expect(events(messagesFrames("m", "c", {}, cache, "s", "k")).slice(1, 4).map(([, data]) => data)).toEqual([
      { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "s" } },
      { type: "content_block_stop", index: 0 },
    ]);
  });

  it("carries the diagnostics it is given in message_start, null included, and ends an overloaded answer with an error", () => {
    const start = (diagnostics?: object | null) => (events(messagesFrames("m", "c", { text: "x" }, cache, undefined, "k", diagnostics))[0]![1].message as Record<string, unknown>);
    expect("diagnostics" in start()).toBe(false);
    expect(start(null).diagnostics).toBeNull();
    expect(start({ cache_miss_reason: { type: "model_changed" } }).diagnostics).toEqual({ cache_miss_reason: { type: "model_changed" } });
    const overloaded = events(messagesFrames("m", "c", { text: "x", fault: "overloaded" }, cache, undefined, "k"));
    expect(overloaded.at(-1)).toEqual(["error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]);
    expect(overloaded.map(([type]) => type)).not.toContain("message_stop");
  });
});
