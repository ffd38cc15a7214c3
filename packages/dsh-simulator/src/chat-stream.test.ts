import { describe, expect, it } from "vitest";
import { chatFrames } from "./chat-stream.js";
import { pieces } from "./messages-stream.js";
import { tokenize } from "./prompt.js";

/** The frames' data, each checked to be one `data:` line. */
function chunks(frames: readonly string[]): unknown[] {
  return frames.map((text) => {
    const match = /^data: (.*)\n\n$/s.exec(text);
    if (match === null) throw new Error(`not an SSE frame: ${text}`);
    return match[1] === "[DONE]" ? "[DONE]" : (JSON.parse(match[1]!) as unknown);
  });
}

const chunk = (choice: object, usage?: object, id = "chatcmpl-3", model = "deepseek-x") => ({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, ...choice }], ...(usage === undefined ? {} : { usage }) });

describe("chatFrames", () => {
  it("streams the role, reasoning, text and each call's arguments in pieces, then the finish with DeepSeek's cache usage and [DONE]", () => {
    const reasoning = "Which of the two files holds the answer?";
    const args = { path: "a-rather-long-file-name.txt" };
    const json = JSON.stringify(args);
    const frames = chunks(chatFrames(3, "deepseek-x", { reasoning, text: "Reading.", toolCalls: [{ name: "read_file", arguments: args }, { name: "list_dir", arguments: "{}" }] }, 120, 64, "k"));
    const [first, ...rest] = pieces(json);
    const completion = tokenize(`${reasoning}Reading.read_file${json}list_dir{}`).length;
    expect(frames).toEqual([
      chunk({ delta: { role: "assistant", content: "" }, finish_reason: null }),
      ...pieces(reasoning).map((piece) => chunk({ delta: { reasoning_content: piece }, finish_reason: null })),
      chunk({ delta: { content: "Reading." }, finish_reason: null }),
      chunk({ delta: { tool_calls: [{ index: 0, id: "call_k_0", type: "function", function: { name: "read_file", arguments: first } }] }, finish_reason: null }),
      ...rest.map((piece) => chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: piece } }] }, finish_reason: null })),
      chunk({ delta: { tool_calls: [{ index: 1, id: "call_k_1", type: "function", function: { name: "list_dir", arguments: "{}" } }] }, finish_reason: null }),
      chunk(
        { delta: {}, finish_reason: "tool_calls" },
        {
          prompt_tokens: 120,
          completion_tokens: completion,
          total_tokens: 120 + completion,
          prompt_cache_hit_tokens: 64,
          prompt_cache_miss_tokens: 56,
          prompt_tokens_details: { cached_tokens: 64 },
          completion_tokens_details: { reasoning_tokens: tokenize(reasoning).length },
        },
      ),
      "[DONE]",
    ]);
    expect(pieces(reasoning).length).toBeGreaterThan(1);
    expect(rest.length).toBeGreaterThan(0);
  });

  it("finishes with stop without calls, with the script's reason when it gives one, and counts no reasoning tokens without reasoning", () => {
    const finish = (frames: readonly string[]) => chunks(frames).at(-2) as { choices: { finish_reason: string }[]; usage: Record<string, unknown> };
    const plain = finish(chatFrames(1, "m", { text: "Done." }, 10, 0, "k"));
    expect(plain.choices[0]!.finish_reason).toBe("stop");
    expect(plain.usage).toEqual({ prompt_tokens: 10, completion_tokens: tokenize("Done.").length, total_tokens: 10 + tokenize("Done.").length, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 10, prompt_tokens_details: { cached_tokens: 0 } });
    expect(finish(chatFrames(1, "m", { text: "Cut", finishReason: "length" }, 10, 0, "k")).choices[0]!.finish_reason).toBe("length");
    expect(finish(chatFrames(1, "m", { toolCalls: [{ name: "f", arguments: "" }] }, 10, 0, "k")).choices[0]!.finish_reason).toBe("tool_calls");
    // A call with no arguments still opens with its name and an empty first piece.
    const call = { tool_calls: [{ index: 0, id: "call_k_0", type: "function", function: { name: "f", arguments: "" } }] };
    expect(chunks(chatFrames(1, "m", { toolCalls: [{ name: "f", arguments: "" }] }, 10, 0, "k"))[1]).toEqual(chunk({ delta: call, finish_reason: null }, undefined, "chatcmpl-1", "m"));
  });

  it("ends an overloaded answer with an error chunk instead of the finish and [DONE]", () => {
    const frames = chunks(chatFrames(2, "m", { text: "x", fault: "overloaded" }, 10, 0, "k"));
    expect(frames.at(-1)).toEqual({ error: { message: "Overloaded", type: "overloaded_error" } });
    expect(frames).not.toContain("[DONE]");
    expect(frames).toHaveLength(3);
  });
});
