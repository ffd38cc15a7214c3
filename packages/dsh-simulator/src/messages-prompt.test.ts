import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { renderMessagesPrompt, renderPromptParts, type PromptPart } from "./messages-prompt.js";
import { tokenize } from "./prompt.js";

/** Counts the hashes made: a prompt that repeats the last one's start must not hash it again. */
const hashes = vi.hoisted(() => ({ made: 0 }));
vi.mock("node:crypto", async (original) => {
  const crypto = await original<typeof import("node:crypto")>();
  return { ...crypto, createHash: (algorithm: string) => (hashes.made++, crypto.createHash(algorithm)) };
});

/** User text blocks, one per text, and what each renders as. */
const userParts = (texts: readonly string[]): PromptPart[] => texts.map((text, i) => ({ path: `messages.${i}.content.0`, block: { type: "text", text }, kind: { of: "message", opens: "user" } }));

/** The blocks of a prompt of user texts for `model`, tokenized and hashed from scratch. */
function fromScratch(model: string, texts: readonly string[]) {
  let hash = createHash("sha256").update(model).digest("hex");
  let tokens = 0;
  return texts.map((text, i) => {
    hash = createHash("sha256").update(hash).update(`<|user|>${text}`).digest("hex");
    tokens += tokenize(`<|user|>${text}`).length;
    return { path: `messages.${i}.content.0`, block: { type: "text", text }, cumulativeTokens: tokens, prefixKey: hash, ttl: undefined };
  });
}

describe("renderPromptParts", () => {
  it("renders each prompt as from scratch whatever was rendered before it, for any model", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom("m", "n"), fc.nat(), fc.array(fc.constantFrom("a", "b", "ab", "Hi."), { maxLength: 5 })), { minLength: 1, maxLength: 8 }), (steps) => {
        const prompts = new Map<string, string[]>();
        for (const [model, keep, added] of steps) {
          const before = prompts.get(model) ?? [];
          const texts = [...before.slice(0, keep % (before.length + 1)), ...added];
          prompts.set(model, texts);
          const out: number[] = [];
          expect(renderPromptParts(model, userParts(texts), undefined, out)).toEqual(fromScratch(model, texts));
          expect(out).toEqual(texts.flatMap((text) => [...tokenize(`<|user|>${text}`)]));
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("hashes only the blocks past the start a prompt repeats of the last one rendered for its model", () => {
    renderPromptParts("repeat", userParts(["one", "two", "three"]));
    hashes.made = 0;
    renderPromptParts("repeat", userParts(["one", "two", "three", "four"]));
    // The model's own start, then the new block.
    expect(hashes.made).toBe(2);
    hashes.made = 0;
    renderPromptParts("repeat", userParts(["one", "2", "three", "four"]));
    expect(hashes.made).toBe(4);
  });

  it("neither reads nor keeps the last prompt when it renders blocks after another block", () => {
    const whole = renderPromptParts("after", userParts(["one", "two"]));
    const [x] = renderPromptParts("elsewhere", userParts(["x"]));
    const [after] = renderPromptParts("after", userParts(["one"]), x);
    expect(after!.prefixKey).toBe(createHash("sha256").update(x!.prefixKey).update("<|user|>one").digest("hex"));
    expect(after!.cumulativeTokens).toBe(x!.cumulativeTokens + tokenize("<|user|>one").length);
    hashes.made = 0;
    expect(renderPromptParts("after", userParts(["one", "two", "three"])).slice(0, 2)).toEqual(whole);
    expect(hashes.made).toBe(2);
  });

  it("keeps the last prompt of a few models only", () => {
    renderPromptParts("first", userParts(["one"]));
    for (let i = 0; i < 16; i++) renderPromptParts(`other ${i}`, userParts(["one"]));
    hashes.made = 0;
    renderPromptParts("first", userParts(["one"]));
    expect(hashes.made).toBe(2);
  });

  it("reads a null cache marker as none", () => {
    const [block] = renderPromptParts("m", [{ path: "system.0", block: { type: "text", text: "Hi.", cache_control: null }, kind: { of: "system" } }]);
    expect(block!.ttl).toBeUndefined();
  });


  it("renders each block as the simulated model reads it, chaining each prefix's hash from the model's", () => {
    const parts: PromptPart[] = [
      // A tool definition: a name, a description and a schema, as the simulator reads a body's tools.
      { path: "tools.0", block: { name: "t", description: "d", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } } as PromptPart["block"], kind: { of: "tool" } },
      { path: "system.0", block: { type: "text", text: "Be brief." }, kind: { of: "system" } },
      { path: "messages.0.content.0", block: { type: "text", text: "Hi." }, kind: { of: "message", opens: "user" } },
      { path: "messages.0.content.1", block: { type: "image", source: { media_type: "image/png", data: "AAAA" } }, kind: { of: "message" } },
      { path: "messages.1.content.0", block: { type: "redacted_thinking", data: "xyz" }, kind: { of: "message", opens: "assistant" } },
      { path: "messages.1.content.1", block: { type: "tool_use", id: "c", name: "t", input: { a: 1 } }, kind: { of: "message" } },
      { path: "messages.2.content.0", block: { type: "tool_result", tool_use_id: "c", is_error: true, content: "bad" }, kind: { of: "message", opens: "user" } },
      { path: "messages.2.content.1", block: { type: "document" }, kind: { of: "message" } },
      { path: "messages.3.content.0", block: { type: "thinking", thinking: "hm", signature: "s" }, kind: { of: "message", opens: "assistant" } },
      { path: "messages.4.content.0", block: { type: "tool_result", tool_use_id: "d", content: [{ type: "text", text: "ok" }], cache_control: { type: "ephemeral", ttl: "1h" } }, kind: { of: "message", opens: "user" } },
    ];
    const texts = [
      '<|tool|>{"name":"t","description":"d","input_schema":{"type":"object"}}',
      "<|system|>Be brief.",
      "<|user|>Hi.",
      "<|image image/png 4|>",
      "<|assistant|><|redacted_thinking|>xyz",
      '<|tool_use c t|>{"a":1}',
      "<|user|><|tool_result c error|>bad",
      "<|document|>",
      "<|assistant|><|thinking|>hm",
      "<|user|><|tool_result d|>ok",
    ];
    let hash = createHash("sha256").update("m").digest("hex");
    let tokens = 0;
    const expected = texts.map((text, i) => {
      hash = createHash("sha256").update(hash).update(text).digest("hex");
      tokens += tokenize(text).length;
      return { path: parts[i]!.path, block: parts[i]!.block, cumulativeTokens: tokens, prefixKey: hash, ttl: i === 0 ? "5m" : i === 9 ? "1h" : undefined };
    });
    const out: number[] = [];
    expect(renderPromptParts("m", parts, undefined, out)).toEqual(expected);
    expect(out).toEqual(texts.flatMap((text) => [...tokenize(text)]));
  });

  it("renders a prompt in two calls, the second after the first's last block, as in one", () => {
    const body = {
      model: "claude-sonnet-4-6",
      tools: [{ name: "t", description: "d", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi." }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm", signature: "s" }, { type: "tool_use", id: "c", name: "t", input: { a: 1 } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "c", content: [{ type: "text", text: "ok" }] }, { type: "text", text: "More.", cache_control: { type: "ephemeral", ttl: "1h" } }] },
      ],
    };
    const tokens: number[] = [];
    const whole = renderMessagesPrompt(body, tokens);
    const parts: PromptPart[] = [
      { path: "tools.0", block: body.tools[0]!, kind: { of: "tool" } },
      { path: "system.0", block: body.system[0]!, kind: { of: "system" } },
      ...body.messages.flatMap((message, m) => message.content.map((block, i): PromptPart => ({ path: `messages.${m}.content.${i}`, block, kind: i === 0 ? { of: "message", opens: message.role } : { of: "message" } }))),
    ];
    for (let cut = 0; cut <= parts.length; cut++) {
      const split: number[] = [];
      const first = renderPromptParts(body.model, parts.slice(0, cut), undefined, split);
      const rest = renderPromptParts(body.model, parts.slice(cut), first.at(-1), split);
      expect([...first, ...rest]).toEqual(whole);
      expect(split).toEqual(tokens);
    }
    expect(whole.map((block) => block.ttl)).toEqual(["5m", undefined, undefined, undefined, undefined, undefined, "1h"]);
  });
});
