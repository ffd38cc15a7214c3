import { describe, expect, it } from "vitest";
import { canonical, contentsOf, geminiExploreView, renderGeminiPrompt, signPayload, signedPayload } from "./gemini-prompt.js";
import { geminiVerdict, signsCalls } from "./gemini-rules.js";
import { geminiCacheMinimum, geminiPromptTokens, geminiRoute, serveGeminiCache, serveGeminiTokens } from "./gemini-serve.js";
import { PrefixCache } from "./prefix-cache.js";
import { geminiFrames, type GeminiAnswer } from "./gemini-stream.js";
import { segmentsTokens } from "./prompt.js";

const body = {
  tools: [{ functionDeclarations: [{ name: "f", description: "F." }] }],
  systemInstruction: { parts: [{ text: "Be brief." }] },
  contents: [
    { role: "user", parts: [{ text: "hi" }, { inlineData: { mimeType: "image/png", data: "AAAA" } }] },
    { role: "model", parts: [{ text: "plan", thought: true }, { text: "ok" }, { functionCall: { name: "f", args: { b: 1, a: [2] } } }, { executableCode: { code: "1" } }] },
    { role: "user", parts: [{ functionResponse: { name: "f", response: { output: "done" }, parts: [{ inlineData: { data: "BB" } }] } }] },
    { parts: [{ text: "no role" }, "not a part", null] },
    "not a content",
  ],
};

describe("the Gemini prompt as the simulator reads it", () => {
  it("renders tools, the system instruction and each content part by part, calls and results read as values", () => {
    expect(renderGeminiPrompt(body)).toEqual([
      '<|tools|>[{"functionDeclarations":[{"description":"F.","name":"f"}]}]<|end|>',
      "<|system|>Be brief.<|end|>",
      "<|user|>hi<|image|>4<|end|>",
      '<|model|><|think|>planok<|call|>f({"a":[2],"b":1}){"executableCode":{"code":"1"}}<|end|>',
      '<|user|><|result|>f:{"output":"done"}<|image|>2<|end|>',
      "<|user|>no role<|end|>",
      "<|user|><|end|>",
    ]);
    expect(renderGeminiPrompt({ contents: [{ role: "user", parts: [{ text: "x" }] }], tools: [] })).toEqual(["<|user|>x<|end|>"]);
    expect(geminiPromptTokens(body)).toEqual(segmentsTokens(renderGeminiPrompt(body)).tokens);
    expect(contentsOf({ contents: "nope" })).toEqual([]);
    expect(contentsOf({ contents: [{ role: "model", parts: "nope" }] })).toEqual([{ role: "model", parts: [] }]);
  });

  it("signs a call by its name and arguments as values, and text or thoughts by all of the content's", () => {
    expect(canonical({ b: [1, { d: null, c: "x" }], a: true })).toBe('{"a":true,"b":[1,{"c":"x","d":null}]}');
    const content = { role: "model", parts: [{ text: "a", thought: true }, { text: "b" }, { text: "c", thought: true }, { text: "d" }, { functionCall: { name: "f" } }] };
    expect(signedPayload(content, content.parts[1]!)).toBe("text\nbd");
    expect(signedPayload(content, content.parts[0]!)).toBe("thought\nac");
    expect(signedPayload(content, content.parts[4]!)).toBe("call\nf\n{}");
    expect(signedPayload({ role: "model", parts: [{ thoughtSignature: "s" }] }, { thoughtSignature: "s" })).toBe("text\n");
    expect(signPayload("call\nf\n{}")).toBe(signPayload("call\nf\n{}"));
    expect(signPayload("call\nf\n{}")).not.toBe(signPayload("call\ng\n{}"));
    expect(signPayload("x")).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it("shows the explore policy the conversation as chat messages", () => {
    expect(geminiExploreView(body)).toEqual({
      tools: body.tools,
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "ok" },
        { role: "assistant", tool_calls: [{ function: { name: "f" } }] },
        { role: "tool", content: "done" },
        { role: "user", content: "no role" },
      ],
    });
    expect(geminiExploreView({ contents: [{ role: "user", parts: [{ functionResponse: { response: { error: "bad" } } }, { functionResponse: {} }] }] })).toEqual({
      messages: [
        { role: "tool", content: "bad" },
        { role: "tool", content: "" },
      ],
    });
  });

  it("serves counted tokens from the implicit cache as it serves the body they were counted from", () => {
    const long = "word ".repeat(1200);
    const bodies = [1, 2, 3].map((turns) => ({ contents: Array.from({ length: turns }, (_, i) => ({ role: i % 2 === 0 ? "user" : "model", parts: [{ text: `${long}${i}` }] })) }));
    const fromBodies = new PrefixCache();
    const fromTokens = new PrefixCache();
    for (const model of ["gemini-2.5-flash", "gemini-3-flash"]) {
      for (const body of [...bodies, bodies[0]!]) {
        const served = serveGeminiCache(fromBodies, body, model);
        expect(serveGeminiTokens(fromTokens, geminiPromptTokens(body), model)).toBe(served.cachedTokens);
      }
    }
    expect(fromTokens.keys()).toEqual(fromBodies.keys());
    expect(fromTokens.keys().length).toBeGreaterThan(10);
    expect(serveGeminiTokens(fromTokens, geminiPromptTokens(bodies[2]!), "gemini-2.5-flash")).toBeGreaterThan(2048);
  });

  it("routes only the streaming path and decodes the model", () => {
    expect(geminiRoute("/v1beta/models/gemini-3.8-flash:streamGenerateContent")).toBe("gemini-3.8-flash");
    expect(geminiRoute("/v1beta/models/tuned%2Fx:streamGenerateContent")).toBe("tuned/x");
    for (const path of ["/v1beta/models/m:generateContent", "/v1/models/m:streamGenerateContent", "/v1beta/models/:streamGenerateContent", "/v1beta/models/a/b:streamGenerateContent"]) expect(geminiRoute(path)).toBeUndefined();
  });
});

const parse = (frames: readonly string[]) => frames.map((frame) => JSON.parse(frame.replace(/^data: /, "").replace(/\r\n\r\n$/, "")) as Record<string, unknown>);
const answer: GeminiAnswer = { responseId: "r", model: "gemini-3.8-flash", thinking: true, thoughts: true, promptTokens: 5000, cachedTokens: 4096 };

describe("the Gemini answer frames", () => {
  it("streams thoughts, text pieces, signed calls (raw argument text kept), then the finish with usage", () => {
    const frames = geminiFrames(answer, { reasoning: "Think it over first, carefully and at length.", text: "Hello", toolCalls: [{ name: "f", arguments: '{"2": 1, "1": 0}' }, { name: "g", arguments: { a: 1 } }, { name: "h", arguments: "not json" }] });
    expect(frames.every((frame) => frame.startsWith("data: {") && frame.endsWith("}\r\n\r\n"))).toBe(true);
    expect(frames[3]).toContain(`{"functionCall":{"name":"f","args":{"2": 1, "1": 0}},"thoughtSignature":${JSON.stringify(signPayload('call\nf\n{"1":0,"2":1}'))}}`);
    expect(frames[3]).toContain('{"functionCall":{"name":"g","args":{"a":1}}}');
    expect(frames[3]).toContain('{"functionCall":{"name":"h","args":"not json"}}');
    const chunks = parse(frames);
    expect(chunks.map((chunk) => (chunk.candidates as { content: { parts: { text?: string; thought?: boolean }[] } }[])[0]!.content.parts.map((part) => (part.thought === true ? "thought" : (part.text ?? "call"))))).toEqual([
      ["thought"],
      ["thought"],
      ["Hello"],
      ["call", "call", "call"],
      [""],
    ]);
    const last = chunks.at(-1)!;
    expect(last).toMatchObject({ responseId: "r", modelVersion: "gemini-3.8-flash", candidates: [{ finishReason: "STOP", index: 0 }] });
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 5000, cachedContentTokenCount: 4096, thoughtsTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number) });
    const usage = last.usageMetadata as Record<string, number>;
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount! + usage.candidatesTokenCount! + usage.thoughtsTokenCount!);
    expect(JSON.stringify(last)).not.toContain("thoughtSignature");
  });

  it("signs a thinking model's text answer at its end, and signs nothing for a model that does not think", () => {
    const text = parse(geminiFrames(answer, { text: "Done." }));
    expect(text.at(-1)!.candidates).toEqual([{ content: { parts: [{ text: "", thoughtSignature: signPayload("text\nDone.") }], role: "model" }, finishReason: "STOP", index: 0 }]);
    const plain = geminiFrames({ ...answer, thinking: false, thoughts: false, cachedTokens: 0 }, { text: "Done.", finishReason: "length", toolCalls: [{ name: "f", arguments: {} }] });
    expect(plain.join("")).not.toContain("thoughtSignature");
    expect(plain.join("")).not.toContain('"thought"');
    const last = parse(plain).at(-1)!;
    expect(last).toMatchObject({ candidates: [{ finishReason: "MAX_TOKENS" }] });
    expect(last.usageMetadata).not.toHaveProperty("cachedContentTokenCount");
    expect(last.usageMetadata).not.toHaveProperty("thoughtsTokenCount");
    // Thinking without asking for thoughts: no thought parts, the default reasoning still counted.
    const quiet = parse(geminiFrames({ ...answer, thoughts: false }, { text: "x" }));
    expect(JSON.stringify(quiet)).not.toContain('"thought":true');
    expect((quiet.at(-1)!.usageMetadata as Record<string, number>).thoughtsTokenCount).toBeGreaterThan(0);
  });

  it("ends an overloaded answer with Google's error object instead of a finish", () => {
    const frames = geminiFrames(answer, { text: "x", fault: "overloaded" });
    expect(parse(frames).at(-1)).toEqual({ error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } });
  });
});

describe("the Gemini rules, one at a time", () => {
  const call = (name: string, signature?: string) => ({ functionCall: { name, args: {} }, ...(signature === undefined ? {} : { thoughtSignature: signature }) });
  const signed = (name: string) => call(name, signPayload(`call\n${name}\n{}`));
  const answer = (names: readonly string[]) => ({ role: "user", parts: names.map((name) => ({ functionResponse: { name, response: {} } })) });
  const user = (text: string) => ({ role: "user", parts: [{ text }] });

  it("asks for the first call's signature in every step of the current turn, naming where it is missing", () => {
    const steps = [user("go"), { role: "model", parts: [signed("a")] }, answer(["a"]), { role: "model", parts: [{ text: "then" }, call("b"), call("c")] }, answer(["b", "c"])];
    expect(geminiVerdict({ contents: steps }, "gemini-3.8-flash")).toEqual({
      refused: true,
      message: "Function call is missing a thought_signature in functionCall parts: contents[3], function call b, position 2. See the Gemini API's thought signatures documentation.",
    });
    // A result-only user content does not start a turn; a text one does.
    expect(geminiVerdict({ contents: [...steps, { role: "model", parts: [{ text: "done" }] }, user("next")] }, "gemini-3.8-flash")).toMatchObject({ refused: false });
    expect(geminiVerdict({ contents: [user("go"), { role: "model", parts: [signed("a"), call("b")] }, answer(["a", "b"])] }, "gemini-3.8-flash")).toEqual({ refused: false, thinking: true, thoughts: false });
    expect(geminiVerdict({ contents: [user("go"), { role: "user", parts: [call("a")] }] }, "gemini-3.8-flash")).toMatchObject({ refused: false });
  });

  it("counts one function response per call in the content right after, and only there", () => {
    const calls = { role: "model", parts: [signed("a"), call("b")] };
    expect(geminiVerdict({ contents: [user("go"), calls, { role: "model", parts: [{ text: "x" }] }] }, "m")).toMatchObject({ refused: true, message: expect.stringContaining("function response parts (0) is equal to the number of function call parts of the function call turn (2), at contents[2]") });
    expect(geminiVerdict({ contents: [user("go"), calls, answer(["a", "b", "c"])] }, "m")).toMatchObject({ refused: true });
    expect(geminiVerdict({ contents: [user("go"), calls] }, "m")).toMatchObject({ refused: false });
    expect(geminiVerdict({ contents: [user("go"), { role: "user", parts: [call("a")] }, user("x")] }, "m")).toMatchObject({ refused: false });
  });

  it("names Gemini 3 and later, and their implicit cache minimum, by the start of the name only", () => {
    expect(["gemini-3.8-flash", "gemini-9-x", "gemini-12", "my-gemini-3", "gemini-2.5-pro", "gemini-"].map(signsCalls)).toEqual([true, true, true, false, false, false]);
    expect(["my-gemini-3", "gemini-2.5-flash", "gemini-2.0", "gemini-3"].map(geminiCacheMinimum)).toEqual([1024, 2048, 1024, 4096]);
    expect(geminiRoute("/x/v1beta/models/m:streamGenerateContent")).toBeUndefined();
    expect(geminiRoute("/v1beta/models/m:streamGenerateContentX")).toBeUndefined();
  });

  it("refuses a role other than user and model, and the minimal level on the models that take none", () => {
    expect(geminiVerdict({ contents: [user("x"), { role: "assistant", parts: [{ text: "y" }] }] }, "m")).toEqual({ refused: true, message: 'Please use a valid role: user, model (contents[1] has "assistant").' });
    expect(geminiVerdict({ contents: [{ parts: [{ text: "no role is the user" }] }] }, "m")).toMatchObject({ refused: false });
    const minimal = { generationConfig: { thinkingConfig: { thinkingLevel: "minimal" } }, contents: [user("x")] };
    for (const model of ["gemini-3.8-flash", "gemini-3.7-flash"]) expect(geminiVerdict(minimal, model)).toEqual({ refused: true, message: `Thinking level MINIMAL is not supported for model ${model}.` });
    for (const model of ["gemini-3.6-flash", "gemini-3.5-flash-lite", "my-gemini-3.8-flash"]) expect(geminiVerdict(minimal, model)).toMatchObject({ refused: false });
    expect(geminiVerdict({ ...minimal, generationConfig: { thinkingConfig: { thinkingLevel: "low" } } }, "gemini-3.8-flash")).toMatchObject({ refused: false });
  });

  it("reads thoughts as asked for only when includeThoughts is true, and accepts every known level", () => {
    for (const level of ["minimal", "low", "medium", "high"]) {
      expect(geminiVerdict({ generationConfig: { thinkingConfig: { thinkingLevel: level, includeThoughts: "yes" } }, contents: [user("x")] }, "m")).toEqual({ refused: false, thinking: false, thoughts: false });
    }
  });
});
