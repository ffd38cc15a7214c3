import { describe, expect, it } from "vitest";
import { signPayload } from "./gemini-prompt.js";
import { geminiFrames, type GeminiAnswer } from "./gemini-stream.js";
import { pieces } from "./messages-stream.js";
import { tokenize } from "./prompt.js";

type Chunk = { candidates: { content: { parts: { text?: string; thought?: boolean; functionCall?: { name: string; args: unknown } }[] } }[]; usageMetadata?: Record<string, number> };
const parse = (frames: readonly string[]) => frames.map((frame) => JSON.parse(frame.slice("data: ".length)) as Chunk);
const answer: GeminiAnswer = { responseId: "r", model: "gemini-3.8-flash", thinking: true, thoughts: true, promptTokens: 50, cachedTokens: 0 };
const DEFAULT_REASONING = "Let me work out the next step.";

describe("geminiFrames, part by part", () => {
  it("streams the stock reasoning as thoughts when a thinking model's script has none, and counts it", () => {
    const chunks = parse(geminiFrames(answer, { text: "ok" }));
    const thoughts = chunks.flatMap((chunk) => chunk.candidates[0]!.content.parts.filter((part) => part.thought === true).map((part) => part.text));
    expect(thoughts).toEqual(pieces(DEFAULT_REASONING));
    expect(chunks.at(-1)!.usageMetadata!.thoughtsTokenCount).toBe(tokenize(DEFAULT_REASONING).length);
  });

  it("sends a text answer as its pieces and a last chunk, with no chunk of calls", () => {
    const text = "A text long enough to come in more than one piece.";
    const frames = geminiFrames({ ...answer, thinking: false }, { text });
    expect(parse(frames).map((chunk) => chunk.candidates[0]!.content.parts.map((part) => part.text))).toEqual([...pieces(text).map((piece) => [piece]), [""]]);
  });

  it("counts the answer's tokens over its text and each call's name and arguments", () => {
    const toolCalls = [{ name: "read", arguments: { path: "a" } }, { name: "list", arguments: "{}" }];
    const usage = parse(geminiFrames({ ...answer, thinking: false, cachedTokens: 20 }, { text: "Reading.", toolCalls })).at(-1)!.usageMetadata!;
    const answerTokens = tokenize(`Reading.read${JSON.stringify({ path: "a" })}list${JSON.stringify("{}")}`).length;
    expect(usage).toEqual({ promptTokenCount: 50, candidatesTokenCount: answerTokens, totalTokenCount: 50 + answerTokens, cachedContentTokenCount: 20 });
  });

  it("sends arguments given as text as they are only when they are a JSON object, else as a JSON string", () => {
    const toolCalls = ['{ "a" : 1 }', "null", "[1]", "5", '"x"', "{broken"].map((args, i) => ({ name: `f${i}`, arguments: args }));
    const frames = geminiFrames({ ...answer, thinking: false }, { toolCalls });
    // No text: the calls' chunk and the last one.
    expect(frames).toHaveLength(2);
    const calls = frames[0]!;
    expect(calls).toContain('{"functionCall":{"name":"f0","args":{ "a" : 1 }}}');
    for (const [i, args] of ["null", "[1]", "5", '"x"', "{broken"].entries()) expect(calls).toContain(`{"functionCall":{"name":"f${i + 1}","args":${JSON.stringify(args)}}}`);
  });

  it("signs only a thinking model's first call", () => {
    const frames = geminiFrames(answer, { toolCalls: [{ name: "f", arguments: {} }, { name: "g", arguments: {} }] });
    const calls = frames.find((frame) => frame.includes("functionCall"))!;
    expect(calls).toContain(`{"functionCall":{"name":"f","args":{}},"thoughtSignature":${JSON.stringify(signPayload("call\nf\n{}"))}},{"functionCall":{"name":"g","args":{}}}]`);
  });
});
