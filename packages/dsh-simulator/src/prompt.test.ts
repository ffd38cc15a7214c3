import { encode } from "gpt-tokenizer";
import { describe, expect, it } from "vitest";
import { promptTokens, renderPrompt, segmentsTokens, tokenize } from "./prompt.js";

describe("renderPrompt", () => {
  it("renders the tools, then each message between role markers, as a chat template does", () => {
    const tools = [{ type: "function", function: { name: "read_file", parameters: { type: "object" } } }];
    const calls = [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }];
    expect(
      renderPrompt({
        tools,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: [{ type: "text", text: "Look " }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }, { type: "text", text: " here." }] },
          { role: "assistant", content: "Reading.", reasoning_content: "Read first.", tool_calls: calls },
          { role: "tool", tool_call_id: "c1", content: "hello" },
          { role: "assistant", content: "", tool_calls: calls },
          { role: "assistant", content: "It says hello.", reasoning_content: "Dropped: no call." },
          { role: "user", content: [{ type: "image_url" }, { type: "text" }] },
          { role: "user", content: 42 },
        ],
      }),
    ).toEqual([
      `<|tools|>${JSON.stringify(tools)}<|end|>`,
      "<|system|>Be brief.<|end|>",
      "<|user|>Look <|image|>26 here.<|end|>",
      `<|assistant|><|think|>Read first.<|/think|>Reading.<|calls|>${JSON.stringify(calls)}<|end|>`,
      "<|tool|>[c1]hello<|end|>",
      `<|assistant|><|calls|>${JSON.stringify(calls)}<|end|>`,
      "<|assistant|>It says hello.<|end|>",
      "<|user|><|image|>0<|end|>",
      "<|user|><|end|>",
    ]);
  });

  it("renders no tools segment for an empty list, and nothing for a body without messages", () => {
    expect(renderPrompt({ tools: [], messages: [{ role: "user", content: "q" }] })).toEqual(["<|user|>q<|end|>"]);
    expect(renderPrompt({ tools: "none" })).toEqual([]);
  });

  it("counts each segment's tokens apart and ends each where the next starts", () => {
    const { tokens, ends } = segmentsTokens(["<|user|>one<|end|>", "<|assistant|>two words<|end|>"]);
    const first = tokenize("<|user|>one<|end|>");
    expect([...tokens]).toEqual([...first, ...tokenize("<|assistant|>two words<|end|>")]);
    expect(ends).toEqual([first.length, tokens.length]);
  });
});

describe("tokenize", () => {
  it("treats special-token text as text", () => {
    expect(tokenize("before <|endoftext|> after").length).toBeGreaterThan(5);
    expect(promptTokens({ messages: [{ role: "user", content: "<|endoftext|>" }] }).length).toBeGreaterThan(0);
  });

  it("handles a 400 KB run of one letter and a 50 MB text without overflowing (linear in the length)", () => {
    expect(tokenize("a".repeat(400_000)).length).toBeGreaterThan(0);
    const huge = "word ".repeat(10_000_000);
    expect(tokenize(huge).length).toBeGreaterThan(1_000_000);
  });

  it("tokenizes in windows of 256 units, never cutting a surrogate pair", () => {
    const windows = (...parts: string[]) => parts.flatMap((part) => encode(part));
    // A pair whose high half is the 256th unit moves whole into the first window.
    const split = `${"x".repeat(255)}𝄞${"é".repeat(300)}`;
    expect(tokenize(split)).toEqual(windows(split.slice(0, 257), split.slice(257, 513), split.slice(513)));
    // A pair that ends the window exactly, or a text of exactly one window, is not moved.
    const whole = `${"y".repeat(254)}𝄞${"z".repeat(10)}`;
    expect(tokenize(whole)).toEqual(windows(whole.slice(0, 256), whole.slice(256)));
    const exact = `${"w".repeat(255)}\ud834`;
    expect(tokenize(exact)).toEqual(windows(exact));
    // A low half alone at the cut does not move it.
    const low = `${"v".repeat(255)}\udd1e${"u".repeat(3)}`;
    expect(tokenize(low)).toEqual(windows(low.slice(0, 256), low.slice(256)));
  });

  it("keeps the tokens of earlier messages when a message is appended", () => {
    const first = { messages: [{ role: "system", content: "s ".repeat(500) }, { role: "user", content: "q" }] };
    const second = { messages: [...first.messages, { role: "assistant", content: "a" }] };
    const before = promptTokens(first);
    expect(promptTokens(second).slice(0, before.length)).toEqual(before);
  });
});
