import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { freezeRequest, type FrozenGenerateOptions, type GenerateOptions, type JsonValue, type Message, type ReasoningEffort } from "dsh-llm";
import { makePng } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeMessage, serializeRequest, type Dialect } from "./serialize.js";
import { serializeRequestPlain } from "./test-support/plain-serialize.js";

const base: GenerateOptions = {
  config: { provider: "deepseek", model: "deepseek-v4-flash", maxTokens: 512, temperature: 0.2, stop: [], reasoningEffort: "high" },
  messages: [
    { role: "system", content: "  ", source: "system-prompt" },
    { role: "user", content: [{ type: "text", text: "list files" }], source: "user" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "I should list." },
        { type: "tool-call", callId: "c1", name: "list_dir", arguments: '{"path": "."}' },
      ],
      source: "model",
    },
    { role: "tool", callId: "c1", toolName: "list_dir", content: [{ type: "text", text: "a.txt" }], isError: false, source: "tool" },
    { role: "assistant", content: [{ type: "reasoning", text: "done" }, { type: "text", text: "One file." }], source: "model" },
  ],
  tools: [{ name: "list_dir", description: "List", parameters: { type: "object", properties: { path: { type: "string" } } } }],
};

describe("serializeRequest", () => {
  it("writes the DeepSeek body with a fixed key order, raw tool arguments and reasoning sent back", async () => {
    expect(await serializeRequest(freezeRequest(structuredClone(base)), { dialect: "deepseek" })).toBe(
      '{"model":"deepseek-v4-flash","messages":[{"role":"system","content":"  "},{"role":"user","content":"list files"},' +
        '{"role":"assistant","content":null,"reasoning_content":"I should list.","tool_calls":[{"id":"c1","type":"function","function":{"name":"list_dir","arguments":"{\\"path\\": \\".\\"}"}}]},' +
        '{"role":"tool","tool_call_id":"c1","content":"a.txt"},{"role":"assistant","content":"One file.","reasoning_content":"done"}],' +
        '"tools":[{"type":"function","function":{"name":"list_dir","description":"List","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}}}],' +
        '"max_tokens":512,"temperature":0.2,"stop":[],"thinking":{"type":"enabled"},"reasoning_effort":"high","stream":true,"stream_options":{"include_usage":true}}',
    );
  });

  it("asks OpenAI for a structured answer with its schema, and DeepSeek for JSON", async () => {
    const responseFormat = { name: "w", schema: { type: "object", properties: { b: { type: "string" } } }, strict: true };
    const request = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", responseFormat } });
    expect(await serializeRequest(request, { dialect: "openai" })).toContain('"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":{"properties":{"b":{"type":"string"}},"type":"object"},"strict":true}},"stream":true');
    expect(await serializeRequest(request, { dialect: "deepseek" })).toContain('"response_format":{"type":"json_object"},"stream":true');
    const loose = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", responseFormat: { name: "w", schema: {} } } });
    expect(await serializeRequest(loose, { dialect: "openai" })).toContain('"response_format":{"type":"json_schema","json_schema":{"name":"w","schema":{}}}');
  });

  it("uses max_completion_tokens and drops reasoning for OpenAI", async () => {
    const body = JSON.parse(await serializeRequest(freezeRequest(structuredClone(base)), { dialect: "openai" }));
    expect(body.max_completion_tokens).toBe(512);
    expect(body.max_tokens).toBeUndefined();
    expect(JSON.stringify(body)).not.toContain("reasoning_content");
  });

  it("maps reasoningEffort none to DeepSeek's thinking switch", async () => {
    const request = freezeRequest({ ...structuredClone(base), config: { provider: "deepseek", model: "m", reasoningEffort: "none" } });
    const body = JSON.parse(await serializeRequest(request, { dialect: "deepseek" }));
    expect(body.thinking).toEqual({ type: "disabled" });
    expect(body.reasoning_effort).toBeUndefined();
  });

  it("turns DeepSeek's thinking on for every other effort, in DeepSeek's words; OpenAI gets its own", async () => {
    const sent = async (reasoningEffort: ReasoningEffort, dialect: Dialect) => {
      const body = JSON.parse(await serializeRequest(freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", reasoningEffort } }), { dialect }));
      return { thinking: body.thinking, effort: body.reasoning_effort };
    };
    const deepseek = { minimal: "low", low: "low", medium: "high", high: "high", xhigh: "max", max: "max" } as const;
    for (const [ours, theirs] of Object.entries(deepseek)) {
      expect(await sent(ours as ReasoningEffort, "deepseek")).toEqual({ thinking: { type: "enabled" }, effort: theirs });
    }
    expect(await sent("max", "openai")).toEqual({ thinking: undefined, effort: "xhigh" });
    expect(await sent("none", "openai")).toEqual({ thinking: undefined, effort: "none" });
    expect(await sent("medium", "openai")).toEqual({ thinking: undefined, effort: "medium" });
  });

  it("is byte-stable whatever the key order of extensions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.stringMatching(/^x_[a-z]{1,6}$/), fc.jsonValue()), async (extensions) => {
        const exact = JSON.parse(JSON.stringify(extensions)) as Record<string, never>;
        const reversed = Object.fromEntries(Object.entries(exact).reverse());
        const serialize = (ext: Record<string, never>) =>
          serializeRequest(freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", extensions: ext } }), { dialect: "deepseek" });
        expect(await serialize(reversed)).toBe(await serialize(exact));
      }),
      { numRuns: 50 },
    );
  });

  it("sends an extension named __proto__ as a field, as the log holds it", async () => {
    const extensions = JSON.parse('{"__proto__":{"a":1},"z":2}') as Record<string, never>;
    const request = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", extensions } });
    const body = await serializeRequest(request, { dialect: "openai" });
    expect(body.endsWith(',"__proto__":{"a":1},"z":2,"stream":true,"stream_options":{"include_usage":true}}')).toBe(true);
    expect(body).toBe(await serializeRequestPlain(request, { dialect: "openai" }));
  });

  it("refuses an extension that would override an adapter field, or have the model read pages the provider fetched", async () => {
    const request = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", extensions: { stream: false } } });
    await expect(serializeRequest(request, { dialect: "deepseek" })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
    const searching = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", extensions: { web_search_options: {} } } });
    await expect(serializeRequest(searching, { dialect: "openai" })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: expect.stringMatching(/^extension web_search_options makes the model read web pages the provider fetches/) });
  });

  it("refuses a cache policy or TTL, which Chat Completions cannot carry, rather than dropping it", async () => {
    for (const extra of [{ cachePolicy: "rolling-v1" }, { cacheTtl: "1h" as const }]) {
      const request = freezeRequest({ ...structuredClone(base), config: { ...base.config, ...extra } });
      await expect(serializeRequest(request, { dialect: "openai" })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringMatching(/^config\.cache/) });
    }
  });

  it("sends images as verified data URLs and fails loudly on a missing or altered object", async () => {
    const store = new MemoryAttachmentStore();
    const png = makePng(2, 2);
    const image = await putImage(store, png);
    const request = freezeRequest({
      config: { provider: "p", model: "m" },
      messages: [{ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" }],
    });
    const body = JSON.parse(await serializeRequest(request, { dialect: "openai", attachments: store }));
    expect(body.messages[0].content[1]).toEqual({ type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.from(png).toString("base64")}` } });
    await expect(serializeRequest(request, { dialect: "openai", attachments: new MemoryAttachmentStore() })).rejects.toMatchObject({
      code: "ATTACHMENT_MISSING",
    });
    await expect(serializeRequest(request, { dialect: "openai" })).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
    const altered = freezeRequest({
      config: { provider: "p", model: "m" },
      messages: [{ role: "user", content: [{ type: "image", image: { ...image, width: 3 } }], source: "user" }],
    });
    await expect(serializeRequest(altered, { dialect: "openai", attachments: store })).rejects.toMatchObject({
      code: "ATTACHMENT_METADATA_MISMATCH",
    });
  });
});

describe("serializeRequest refusals and caches", () => {
  const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" });

  it("refuses what Chat Completions cannot carry, before sending, and never as retryable", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(1, 1));
    const withImage = freezeRequest({
      config: { provider: "p", model: "m" },
      messages: [
        { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "t", arguments: "{}" }], source: "model" },
        { role: "tool", callId: "c", toolName: "t", content: [{ type: "text", text: "a" }, { type: "image", image }], isError: false, source: "tool" },
      ],
    });
    await expect(serializeRequest(withImage, { dialect: "openai", attachments: store })).rejects.toMatchObject({
      code: "LLM_INVALID_REQUEST",
      retryable: false,
      message: "tool result c holds an image, which Chat Completions tool messages cannot carry",
    });
    const userImage = freezeRequest({ config: { provider: "p", model: "m" }, messages: [{ role: "user", content: [{ type: "image", image }], source: "user" }] });
    await expect(serializeRequest(userImage, { dialect: "openai" })).rejects.toMatchObject({
      code: "LLM_ATTACHMENT",
      retryable: false,
      message: `image ${image.digest} cannot be sent: no attachment store was given`,
    });
    const policy = freezeRequest({ config: { provider: "p", model: "m", cachePolicy: "rolling-v1" }, messages: [user("hi")] });
    await expect(serializeRequest(policy, { dialect: "deepseek" })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false });
  });

  it("sends a tool result's text blocks joined, and a user message of one text block as a plain string", async () => {
    const request = freezeRequest({
      config: { provider: "p", model: "m" },
      messages: [
        user("plain"),
        { role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], source: "user" },
        { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "t", arguments: "{}" }], source: "model" },
        { role: "tool", callId: "c", toolName: "t", content: [{ type: "text", text: "x" }, { type: "text", text: "y" }], isError: false, source: "tool" },
      ],
    });
    expect(await serializeRequest(request, { dialect: "openai" })).toBe(
      '{"model":"m","messages":[{"role":"user","content":"plain"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},' +
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"t","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"xy"}],"stream":true,"stream_options":{"include_usage":true}}',
    );
  });

  it("reuses a cached envelope only for the same frozen config, dialect and tool list", async () => {
    const config = Object.freeze({ provider: "p", model: "m", maxTokens: 5 });
    const tools = (description: string) => Object.freeze([Object.freeze({ name: "t", description, parameters: Object.freeze({ type: "object" }) })]);
    const first = freezeRequest({ config, messages: [user("hi")], tools: tools("one") });
    const second = freezeRequest({ config, messages: [user("hi")], tools: tools("two") });
    expect(await serializeRequest(first, { dialect: "openai" })).toContain('"description":"one"');
    expect(await serializeRequest(second, { dialect: "openai" })).toContain('"description":"two"');
    expect(await serializeRequest(second, { dialect: "deepseek" })).toContain('"max_tokens":5');
    expect(await serializeRequest(second, { dialect: "openai" })).toContain('"max_completion_tokens":5');
    expect(await serializeRequest(freezeRequest({ config: { provider: "p", model: "m" }, messages: [user("hi")] }), { dialect: "openai" })).not.toMatch(/max_|temperature/);
  });

  it("serializes a message that is not frozen afresh each time, so a later change to it shows", async () => {
    const message = { role: "user" as const, content: [{ type: "text" as const, text: "before" }], source: "user" };
    const options = { config: { provider: "p", model: "m" }, messages: [message] } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(options, { dialect: "openai" })).toContain("before");
    message.content[0]!.text = "after";
    expect(await serializeRequest(options, { dialect: "openai" })).toContain("after");
  });
});

describe("serializeRequest against the straightforward serializer", () => {
  const text = fc.string({ maxLength: 12 });
  const message: fc.Arbitrary<Message> = fc.oneof(
    fc.record({ role: fc.constant("user" as const), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { minLength: 1, maxLength: 3 }), source: fc.constant("user") }),
    fc.record({
      role: fc.constant("assistant" as const),
      content: fc.array(
        fc.oneof(
          fc.record({ type: fc.constant("text" as const), text }),
          fc.record({ type: fc.constant("reasoning" as const), text }),
          fc.record({ type: fc.constant("tool-call" as const), callId: fc.string({ minLength: 1, maxLength: 4 }), name: fc.constantFrom("a", "b"), arguments: fc.json() }),
        ),
        { maxLength: 3 },
      ),
      source: fc.constant("model"),
    }),
    fc.record({ role: fc.constant("tool" as const), callId: fc.string({ minLength: 1, maxLength: 4 }), toolName: fc.constant("a"), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), isError: fc.boolean(), source: fc.constant("tool") }),
  );
  const config = fc.record(
    {
      provider: fc.constant("p"),
      model: fc.string({ minLength: 1, maxLength: 6 }),
      maxTokens: fc.integer({ min: 1, max: 9999 }),
      temperature: fc.double({ min: 0, max: 2, noNaN: true }),
      stop: fc.array(text, { maxLength: 2 }),
      reasoningEffort: fc.constantFrom("none" as const, "low" as const, "high" as const),
      extensions: fc.dictionary(fc.constantFrom("z", "a", "top_p", "seed"), fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as JsonValue), { maxKeys: 2 }),
    },
    { requiredKeys: ["provider", "model"] },
  );

  it("writes the same bytes, for random requests over shared history, in both dialects", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 8 }), fc.array(config, { minLength: 1, maxLength: 3 }), fc.boolean(), async (messages, configs, withTools) => {
        const shared = [{ role: "system" as const, content: "s", source: "system-prompt" }, ...messages];
        for (const [i, callConfig] of configs.entries()) {
          // Each request extends the history of the previous one, so cached fragments are reused.
          const request = freezeRequest({
            config: callConfig,
            messages: shared.slice(0, Math.max(1, shared.length - configs.length + i + 1)),
            ...(withTools ? { tools: [{ name: "a", description: "d", parameters: { type: "object", b: 1, a: [2] } }] } : {}),
          });
          for (const dialect of ["deepseek", "openai"] as const) {
            const plain = await serializeRequestPlain(request, { dialect });
            expect(await serializeRequest(request, { dialect })).toBe(plain);
            // A body's messages are its messages' own wire JSON, joined: what a reader counts message by message.
            const each = await Promise.all(request.messages.map((m) => serializeMessage(m, { dialect })));
            expect(plain).toContain(`,"messages":[${each.join(",")}],`);
          }
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("gives each of several serializations in flight at once its own bytes, whatever they share", async () => {
    const branch = fc.array(message, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 6 }), fc.array(branch, { minLength: 2, maxLength: 5 }), async (history, branches) => {
        const shared = [{ role: "system" as const, content: "s", source: "system-prompt" }, ...history];
        const config = { provider: "p", model: "m" };
        await serializeRequest(freezeRequest({ config, messages: shared }), { dialect: "deepseek" });
        // Different continuations of the one warmed history, all in flight at once.
        const requests = branches.map((tail) => freezeRequest({ config, messages: [...shared, ...tail] }));
        const expected = await Promise.all(requests.map((request) => serializeRequestPlain(request, { dialect: "deepseek" })));
        expect(await Promise.all(requests.map((request) => serializeRequest(request, { dialect: "deepseek" })))).toEqual(expected);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("interleaves two serializations that extend one history without mixing their bytes", async () => {
    const history = freezeRequest({ config: { provider: "p", model: "m" }, messages: base.messages.slice(0, 3) });
    // Warm the fragments of the shared prefix, then extend it two different ways at once.
    await serializeRequest(history, { dialect: "deepseek" });
    const left = freezeRequest({ config: history.config, messages: [...history.messages, { role: "user", content: [{ type: "text", text: "left ".repeat(50) }], source: "user" }] });
    const right = freezeRequest({ config: history.config, messages: [...history.messages, { role: "user", content: [{ type: "text", text: "right" }], source: "user" }] });
    const [a, b] = await Promise.all([serializeRequest(left, { dialect: "deepseek" }), serializeRequest(right, { dialect: "deepseek" })]);
    expect(a).toBe(await serializeRequestPlain(left, { dialect: "deepseek" }));
    expect(b).toBe(await serializeRequestPlain(right, { dialect: "deepseek" }));
  });

  it("reads and verifies image bytes at every serialization, never from a cache", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 2));
    const request = freezeRequest({ config: { provider: "p", model: "m" }, messages: [{ role: "user", content: [{ type: "image", image }], source: "user" }] });
    expect(await serializeRequest(request, { dialect: "openai", attachments: store })).toBe(await serializeRequestPlain(request, { dialect: "openai", attachments: store }));
    await expect(serializeRequest(request, { dialect: "openai", attachments: new MemoryAttachmentStore() })).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
  });
});
