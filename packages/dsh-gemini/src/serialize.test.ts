import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type GenerateOptions, type Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { GeminiContents } from "./parts.js";
import { serializeRequest, serializeRequestBytes } from "./serialize.js";

const config = { provider: "gemini", model: "gemini-3.8-flash" } as const;
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" });
const body = async (options: GenerateOptions) => serializeRequest(freezeRequest(options));

describe("serializeRequest", () => {
  it("writes the system prompt, tools and settings in a fixed order with contents last, and no model in the body", async () => {
    const text = await body({
      config: { ...config, maxTokens: 100, temperature: 0.5, stop: ["END"], reasoningEffort: "low", responseFormat: { name: "answer", schema: { type: "object", required: ["b"], properties: { b: {} } } }, extensions: { safetySettings: [] } },
      tools: [{ name: "read", description: "Reads.", parameters: { type: "object", properties: { z: {}, a: {} } } }],
      messages: [{ role: "system", content: "Be brief.", source: "system-prompt" }, user("Hi")],
    });
    expect(text).toBe(
      '{"systemInstruction":{"parts":[{"text":"Be brief."}]},"tools":[{"functionDeclarations":[{"name":"read","description":"Reads.","parametersJsonSchema":{"properties":{"a":{},"z":{}},"type":"object"}}]}],' +
        '"generationConfig":{"maxOutputTokens":100,"temperature":0.5,"stopSequences":["END"],"responseMimeType":"application/json","responseJsonSchema":{"properties":{"b":{}},"required":["b"],"type":"object"},"thinkingConfig":{"thinkingLevel":"low","includeThoughts":true}},' +
        '"safetySettings":[],"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}',
    );
    expect((await serializeRequestBytes(freezeRequest({ config, messages: [user("é")] }))).toString("utf8")).toBe('{"contents":[{"role":"user","parts":[{"text":"é"}]}]}');
  });

  it("sends answers back part for part: signatures in place, call ids only as Gemini gave them, results naming the same id, one content per role run", async () => {
    const text = await body({
      config,
      messages: [
        { role: "system", content: "", source: "system-prompt" },
        user("Go"),
        {
          role: "assistant",
          source: "model",
          content: [
            { type: "reasoning", text: "unsigned thought" },
            { type: "reasoning", text: "signed thought", thoughtSignature: "T1" },
            { type: "reasoning", text: "Anthropic's", signature: "A1" },
            { type: "redacted-reasoning", data: "xyz" },
            { type: "text", text: "" },
            { type: "text", text: "Calling.", thoughtSignature: "T2" },
            { type: "tool-call", callId: "g1", itemId: "g1", name: "a", arguments: '{"2":1,"1":2}', thoughtSignature: "T3" },
            { type: "tool-call", callId: "dsh-2", name: "b", arguments: "{}" },
            { type: "provider-item", api: "gemini", item: { executableCode: { language: "PYTHON", code: "1" } } },
            { type: "provider-item", api: "openai-responses", item: { type: "reasoning" } },
          ],
        },
        { role: "tool", callId: "g1", toolName: "a", content: [{ type: "text", text: "one" }], isError: false, source: "tool" },
        { role: "tool", callId: "dsh-2", toolName: "b", content: [{ type: "text", text: "bad" }], isError: true, source: "tool" },
        user("More"),
        { role: "assistant", source: "model", content: [{ type: "text", text: "" }] },
      ],
    });
    expect(JSON.parse(text)).not.toHaveProperty("systemInstruction");
    expect(text).toBe(
      '{"contents":[{"role":"user","parts":[{"text":"Go"}]},{"role":"model","parts":[{"text":"signed thought","thought":true,"thoughtSignature":"T1"},{"text":"Calling.","thoughtSignature":"T2"},' +
        '{"functionCall":{"id":"g1","name":"a","args":{"2":1,"1":2}},"thoughtSignature":"T3"},{"functionCall":{"name":"b","args":{}}},{"executableCode":{"language":"PYTHON","code":"1"}}]},' +
        '{"role":"user","parts":[{"functionResponse":{"id":"g1","name":"a","response":{"output":"one"}}},{"functionResponse":{"name":"b","response":{"error":"bad"}}},{"text":"More"}]}]}',
    );
  });

  it("sends an empty signed text part, and merges consecutive answers into one content", async () => {
    const text = await body({
      config,
      messages: [
        user("Go"),
        { role: "assistant", source: "model", content: [{ type: "text", text: "", thoughtSignature: "T" }] },
        { role: "assistant", source: "model", content: [{ type: "text", text: "more" }] },
      ],
    });
    expect(text).toBe('{"contents":[{"role":"user","parts":[{"text":"Go"}]},{"role":"model","parts":[{"text":"","thoughtSignature":"T"},{"text":"more"}]}]}');
  });

  it("names in each result the id its call went out with: the last call of that id before it, wherever it sits in its answer", async () => {
    const call = (callId: string, itemId: string) => ({ type: "tool-call" as const, callId, itemId, name: "f", arguments: "{}" });
    const result = (callId: string): Message => ({ role: "tool", callId, toolName: "f", content: [{ type: "text", text: callId }], isError: false, source: "tool" });
    const messages: Message[] = [
      { role: "assistant", content: [call("a", "ga"), call("b", "gb"), { type: "text", text: "both" }], source: "model" },
      result("b"),
      result("a"),
      user("again"),
      { role: "assistant", content: [call("a", "ga2")], source: "model" },
      result("a"),
    ];
    const ids = (text: string) => (JSON.parse(text) as { contents: { parts: { functionResponse?: { id: string } }[] }[] }).contents.flatMap((content) => content.parts.flatMap((part) => part.functionResponse?.id ?? []));
    const freezer = new RequestFreezer();
    expect(ids(await serializeRequest(freezer.freeze({ config, messages: messages.slice(0, 3) })))).toEqual(["gb", "ga"]);
    expect(ids(await serializeRequest(freezer.freeze({ config, messages })))).toEqual(["gb", "ga", "ga2"]);
    expect(ids(await body({ config, messages }))).toEqual(["gb", "ga", "ga2"]);
  });

  it("writes a request of frozen messages that no freezer froze afresh each time", async () => {
    const message = Object.freeze({ role: "user" as const, content: Object.freeze([Object.freeze({ type: "text" as const, text: "hi" })]), source: "user" });
    const request = { config, messages: Object.freeze([message]) } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(request)).toBe('{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}');
    expect(await serializeRequest(request)).toBe('{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}');
  });

  it("turns each message of a session into parts once, and the reuse changes no byte (merged contents included)", async () => {
    const call = (id: string): Message => ({ role: "assistant", source: "model", content: [{ type: "tool-call", callId: id, itemId: id, name: "f", arguments: "{}" }] });
    const result = (id: string): Message => ({ role: "tool", callId: id, toolName: "f", content: [{ type: "text", text: id }], isError: false, source: "tool" });
    const first: Message[] = [user("Go"), { role: "assistant", source: "model", content: [{ type: "tool-call", callId: "a", itemId: "a", name: "f", arguments: '{"2":1,"1":2}' }, { type: "tool-call", callId: "b", name: "f", arguments: "{}" }] }, result("a"), result("b")];
    const later: Message[] = [...first, user("more"), call("c"), result("c"), user("end")];
    const freezer = new RequestFreezer();
    const a = freezer.freeze({ config, messages: first });
    const once = await serializeRequest(a);
    expect(await serializeRequest(a)).toBe(once);
    const b = freezer.freeze({ config, messages: [...a.messages, ...later.slice(first.length)] });
    expect(await serializeRequest(b)).toBe(await serializeRequest(freezeRequest({ config, messages: later })));
    expect(await serializeRequest(a)).toBe(once);
  });

  it("builds the contents one message at a time as the body holds them after each, the last content growing", async () => {
    const call = (id: string): Message => ({ role: "assistant", source: "model", content: [{ type: "tool-call", callId: id, itemId: id, name: "f", arguments: "{}" }] });
    const result = (id: string): Message => ({ role: "tool", callId: id, toolName: "f", content: [{ type: "text", text: id }], isError: false, source: "tool" });
    const messages: Message[] = [user("Go"), call("a"), { role: "assistant", source: "model", content: [{ type: "text", text: "" }] }, call("b"), result("a"), result("b"), user("more"), call("c"), result("c")];
    const built = new GeminiContents(undefined);
    for (const [index, message] of messages.entries()) {
      await built.add(message);
      const contents = built.contents.map(({ role, parts }) => ({ role, parts: parts.map((part) => JSON.parse(part) as unknown) }));
      expect(contents).toEqual(JSON.parse(await body({ config, messages: messages.slice(0, index + 1) })).contents);
    }
    // Two answers share a content and two results another; the empty answer adds nothing.
    expect(built.contents.map(({ role, parts }) => `${role} ${parts.length}`)).toEqual(["user 1", "model 2", "user 3", "model 1", "user 1"]);
    // A request's contents leave out a system prompt first; no messages make no contents.
    const system: Message = { role: "system", content: "Be brief.", source: "system-prompt" };
    expect((await GeminiContents.of([system, ...messages], undefined)).contents).toEqual(built.contents);
    expect((await GeminiContents.of([], undefined)).contents).toEqual([]);
  });

  it("sends images inline, in user messages and in tool results, read from the attachment store", async () => {
    const store = new MemoryAttachmentStore();
    const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
    const image = await putImage(store, png);
    const request = freezeRequest({
      config,
      messages: [
        { role: "user", content: [{ type: "image", image }], source: "user" },
        { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "shot", arguments: "{}" }], source: "model" },
        { role: "tool", callId: "c", toolName: "shot", content: [{ type: "text", text: "here" }, { type: "image", image }], isError: false, source: "tool" },
      ],
    });
    const data = png.toString("base64");
    expect(await serializeRequest(request, { attachments: store })).toBe(
      `{"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":"${data}"}}]},{"role":"model","parts":[{"functionCall":{"name":"shot","args":{}}}]},` +
        `{"role":"user","parts":[{"functionResponse":{"name":"shot","response":{"output":"here"},"parts":[{"inlineData":{"mimeType":"image/png","data":"${data}"}}]}}]}]}`,
    );
    await expect(serializeRequest(request)).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
    // A message with an image is read from the store at every serialization, never from a session's memo.
    const freezer = new RequestFreezer();
    const session = freezer.freeze({ config, messages: request.messages });
    await serializeRequest(session, { attachments: store });
    await expect(serializeRequest(session)).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
  });

  it("refuses what Gemini cannot take, naming it: arguments that are no object, efforts without a level, cache settings, owned extensions, a cached content the provider holds, an empty conversation", async () => {
    const call = (args: string): Message => ({ role: "assistant", content: [{ type: "tool-call", callId: "c1", name: "f", arguments: args }], source: "model" });
    await expect(body({ config, messages: [user("x"), call("[1]")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("tool call c1 has arguments that are not a JSON object") });
    await expect(body({ config, messages: [user("x"), call('{"a":')] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false });
    await expect(body({ config, messages: [user("x"), call("null")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    await expect(body({ config, messages: [user("x"), user("")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: "message 1 holds an empty text part, which Gemini refuses" });
    for (const effort of ["none", "xhigh", "max"] as const) {
      await expect(body({ config: { ...config, reasoningEffort: effort }, messages: [user("x")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: `gemini-3.8-flash takes the thinking levels minimal, low, medium, high: reasoningEffort ${effort} has no counterpart` });
    }
    await expect(body({ config: { ...config, cachePolicy: "rolling-v1" }, messages: [user("x")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("implicitly") });
    await expect(body({ config: { ...config, cacheTtl: "5m" }, messages: [user("x")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    await expect(body({ config: { ...config, cacheDiagnostics: true }, messages: [user("x")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("diagnostics") });
    for (const key of ["contents", "generationConfig", "model"]) {
      await expect(body({ config: { ...config, extensions: { [key]: 1 } }, messages: [user("x")] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: `extension ${key} would override a field the adapter sets` });
    }
    await expect(body({ config: { ...config, extensions: { cachedContent: "cachedContents/abc" } }, messages: [user("x")] })).rejects.toMatchObject({
      code: "LLM_INVALID_REQUEST",
      retryable: false,
      message: "extension cachedContent makes the model read a cached content the provider stores, which no log holds: dsh sends each request whole, so that every request can be rebuilt from its log",
    });
    await expect(body({ config, messages: [{ role: "system", content: "Only this.", source: "system-prompt" }] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("at least one message") });
    // Answers that leave no parts make no content either (unsigned reasoning, no text).
    const empties: Message[] = [{ role: "assistant", content: [{ type: "reasoning", text: "hm" }], source: "model" }, { role: "assistant", content: [], source: "model" }];
    await expect(body({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, ...empties] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("at least one message") });
    await expect(body({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, user("x"), user("")] })).rejects.toMatchObject({ message: "message 1 holds an empty text part, which Gemini refuses" });
    await expect(body({ config, messages: [user("x"), { role: "system", content: "late", source: "system-prompt" }] })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: "a system message may only be the first message" });
  });
});
