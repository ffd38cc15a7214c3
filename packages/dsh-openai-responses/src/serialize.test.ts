import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { freezeRequest, type AssistantContent, type GenerateOptions, type LlmCallConfig, type Message } from "dsh-llm";
import { makePng } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { serializeMessageItems, serializeRequest } from "./serialize.js";

const reasoningItem = { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "List it." }], encrypted_content: "gAAA==" };
const answer: AssistantContent[] = [
  { type: "provider-item", api: "openai-responses", item: reasoningItem },
  { type: "text", text: "Sure", itemId: "msg_1" },
  { type: "text", text: ", listing.", itemId: "msg_1" },
  { type: "tool-call", callId: "call_1", name: "list_dir", arguments: '{"path": "."}', itemId: "fc_1" },
];

const base: GenerateOptions = {
  config: { provider: "openai-responses", model: "gpt-5.6", maxTokens: 512, reasoningEffort: "high" },
  messages: [
    { role: "system", content: "Be terse.", source: "system-prompt" },
    { role: "user", content: [{ type: "text", text: "list files" }], source: "user" },
    { role: "assistant", content: answer, source: "model" },
    { role: "tool", callId: "call_1", toolName: "list_dir", content: [{ type: "text", text: "a.txt" }], isError: false, source: "tool" },
  ],
  tools: [{ name: "list_dir", description: "List", parameters: { type: "object", properties: { path: { type: "string" } } } }],
};

// A fresh copy each time: serialization keeps the bytes of frozen messages, and each test must see its own code run.
const body = async (options: GenerateOptions, breakpoints = false) => serializeRequest(freezeRequest(structuredClone(options)), { breakpoints });
const withConfig = (config: Partial<LlmCallConfig>): GenerateOptions => ({ ...base, config: { ...base.config, ...config } });
const withAnswer = (content: AssistantContent[]): GenerateOptions => ({ ...base, messages: [base.messages[0]!, base.messages[1]!, { role: "assistant", content, source: "model" }] });

describe("serializeRequest", () => {
  it("writes a stateless body with a fixed key order, input last, and every answer item as it came", async () => {
    expect(await body(base)).toBe(
      '{"model":"gpt-5.6","tools":[{"type":"function","name":"list_dir","description":"List","parameters":{"properties":{"path":{"type":"string"}},"type":"object"},"strict":false}],' +
        '"reasoning":{"effort":"high"},"max_output_tokens":512,"include":["reasoning.encrypted_content"],"store":false,"stream":true,"input":[' +
        '{"type":"message","role":"developer","content":[{"type":"input_text","text":"Be terse."}]},' +
        '{"type":"message","role":"user","content":[{"type":"input_text","text":"list files"}]},' +
        `${JSON.stringify(reasoningItem)},` +
        '{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Sure","annotations":[]},{"type":"output_text","text":", listing.","annotations":[]}]},' +
        '{"type":"function_call","id":"fc_1","call_id":"call_1","name":"list_dir","arguments":"{\\"path\\": \\".\\"}","status":"completed"},' +
        '{"type":"function_call_output","call_id":"call_1","output":[{"type":"input_text","text":"a.txt"}]}]}',
    );
  });

  it("sends another provider's answer as plain items: text without an id, calls without item ids, its reasoning and items left out", async () => {
    const foreign: AssistantContent[] = [
      { type: "reasoning", text: "thinking", signature: "sig" },
      { type: "redacted-reasoning", data: "opaque" },
      { type: "provider-item", api: "another-api", item: { type: "x" } },
      { type: "text", text: "Hello " },
      { type: "text", text: "there" },
      { type: "tool-call", callId: "toolu_1", name: "list_dir", arguments: "{}" },
    ];
    const input = JSON.parse(await body(withAnswer(foreign))).input;
    expect(input.slice(2)).toEqual([
      { type: "message", role: "assistant", content: "Hello there" },
      { type: "function_call", call_id: "toolu_1", name: "list_dir", arguments: "{}" },
    ]);
  });

  it("leaves out an answer of only empty text no item carried, but keeps an item's empty text", async () => {
    expect(JSON.parse(await body(withAnswer([{ type: "text", text: "" }]))).input).toHaveLength(2);
    expect(JSON.parse(await body(withAnswer([{ type: "text", text: "", itemId: "msg_9" }]))).input[2]).toMatchObject({ id: "msg_9", content: [{ type: "output_text", text: "" }] });
  });

  it("leaves out several empty texts no item carried", async () => {
    expect(JSON.parse(await body(withAnswer([{ type: "text", text: "" }, { type: "text", text: "" }]))).input).toHaveLength(2);
  });

  it("starts a new message where the item id changes", async () => {
    const input = JSON.parse(await body(withAnswer([{ type: "text", text: "a", itemId: "msg_1" }, { type: "text", text: "b", itemId: "msg_2" }, { type: "text", text: "c" }]))).input;
    expect(input.slice(2).map((item: { id?: string }) => item.id)).toEqual(["msg_1", "msg_2", undefined]);
  });

  it("sends images as data URLs read through the attachment store, and an empty tool result as one empty text part", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 2));
    const messages: Message[] = [
      { role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" },
      { role: "assistant", content: [{ type: "tool-call", callId: "c", name: "t", arguments: "{}" }], source: "model" },
      { role: "tool", callId: "c", toolName: "t", content: [], isError: true, source: "tool" },
    ];
    const request = freezeRequest({ config: base.config, messages });
    await expect(serializeRequest(request)).rejects.toMatchObject({ code: "LLM_ATTACHMENT", retryable: false, message: `image ${image.digest} cannot be sent: no attachment store was given` });
    const input = JSON.parse(await serializeRequest(request, { attachments: store })).input;
    // An image is read and verified at every serialization, never served from an earlier one.
    await expect(serializeRequest(request)).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
    expect(input[0].content[1]).toEqual({ type: "input_image", image_url: expect.stringMatching(/^data:image\/png;base64,/), detail: "auto" });
    expect(input[2]).toEqual({ type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: "" }] });
  });

  it("writes extensions with sorted keys after the fields it owns, and refuses those that would add server-side state", async () => {
    const sent = JSON.parse(await body(withConfig({ extensions: { prompt_cache_key: "s-1", prompt_cache_retention: "24h" } })));
    expect(Object.keys(sent).slice(-4)).toEqual(["stream", "prompt_cache_key", "prompt_cache_retention", "input"]);
    for (const key of ["store", "include", "input"]) {
      await expect(body(withConfig({ extensions: { [key]: true } }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: `extension ${key} would override a field the adapter sets` });
    }
    // What the model would read from the provider's side: stored responses, conversations and prompts, and inputs it edits.
    const held = { previous_response_id: "a response the provider stored", conversation: "a conversation the provider stores", prompt: "a prompt template the provider stores", context_management: "an input the provider compacts", truncation: "an input the provider may cut" };
    for (const [key, what] of Object.entries(held)) {
      await expect(body(withConfig({ extensions: { [key]: key === "prompt" ? { id: "pmpt_1", version: "2" } : "auto" } }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: expect.stringMatching(new RegExp(`^extension ${key} makes the model read ${what}.*, which no log holds`)) });
    }
  });

  it("refuses before sending what the API would refuse or has no field for", async () => {
    await expect(body(withConfig({ extensions: { prompt_cache_retention: "24h", prompt_cache_options: { ttl: "30m" } } }))).rejects.toMatchObject({ message: expect.stringContaining("both set a lifetime") });
    expect(JSON.parse(await body(withConfig({ extensions: { prompt_cache_retention: "24h", prompt_cache_options: { mode: "explicit" } } }))).prompt_cache_options).toEqual({ mode: "explicit" });
    for (const options of [null, "x", ["ttl"]]) {
      expect(JSON.parse(await body(withConfig({ extensions: { prompt_cache_retention: "24h", prompt_cache_options: options } }))).prompt_cache_options).toEqual(options);
    }
    // A lifetime in prompt_cache_options alone is one lifetime.
    expect(JSON.parse(await body(withConfig({ extensions: { prompt_cache_options: { ttl: "30m" } } }))).prompt_cache_options).toEqual({ ttl: "30m" });
    await expect(body(withConfig({ stop: ["x"] }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: expect.stringContaining("stop") });
    await expect(body(withConfig({ cacheTtl: "5m" }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("cacheTtl") });
    await expect(body({ ...base, messages: [...base.messages, base.messages[0]!] })).rejects.toMatchObject({ message: expect.stringContaining("first message") });
  });

  it("omits what the request leaves unset, and sends a temperature when one is set", async () => {
    const sent = JSON.parse(await body({ config: { provider: "p", model: "m", temperature: 0.5 }, messages: [base.messages[1]!] }));
    expect(Object.keys(sent)).toEqual(["model", "temperature", "include", "store", "stream", "input"]);
  });

  it("places the named policy's breakpoints on the last part of the marked messages, only where the model takes them", async () => {
    const policy = withConfig({ cachePolicy: "rolling-v1" });
    const marked = (text: string) => JSON.parse(text).input.flatMap((item: { content?: unknown; output?: unknown }, i: number) => {
      const parts = (Array.isArray(item.content) ? item.content : Array.isArray(item.output) ? item.output : []) as { prompt_cache_breakpoint?: unknown }[];
      return parts.some((part) => part.prompt_cache_breakpoint !== undefined) ? [i] : [];
    });
    const sent = await body(policy, true);
    expect(marked(sent)).toEqual([0, 1, 5]);
    expect(JSON.parse(sent).input[5].output[0].prompt_cache_breakpoint).toEqual({ mode: "explicit" });
    expect(marked(await body(withConfig({ cachePolicy: "none" }), true))).toEqual([]);
    expect(marked(await body(base, true))).toEqual([]);
    await expect(body(policy, false)).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: expect.stringContaining("takes no explicit cache breakpoints") });
    await expect(serializeRequest(freezeRequest(structuredClone(policy)))).rejects.toMatchObject({ message: expect.stringContaining("takes no explicit cache breakpoints") });
    await expect(body(withConfig({ cachePolicy: "rolling-v9" }), true)).rejects.toMatchObject({ message: expect.stringContaining("unknown cache policy rolling-v9") });
    // A message marked in one request and not in the next is serialized anew, never from the marked bytes.
    const next = await body({ ...policy, messages: [...base.messages, { role: "assistant", content: [{ type: "text", text: "ok" }], source: "model" }, { role: "user", content: [{ type: "text", text: "more" }], source: "user" }] }, true);
    expect(marked(next)).toEqual([0, 5, 7]);
  });

  it("serializes a long session's earlier messages once: the next request extends the previous body byte for byte", async () => {
    const first = freezeRequest(base);
    const again = freezeRequest({ ...base, messages: [...first.messages, { role: "assistant", content: [{ type: "text", text: "Done.", itemId: "msg_2" }], source: "model" }] });
    const one = await serializeRequest(first);
    const two = await serializeRequest(again);
    expect(two.startsWith(one.slice(0, -2))).toBe(true);
    expect(await serializeRequest(first)).toBe(one);
  });

  it("writes a body's input as its messages' items in order, each message's items alone what serializeMessageItems gives", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 2));
    const messages: Message[] = [
      ...base.messages,
      { role: "assistant", content: [{ type: "text", text: "" }], source: "model" },
      { role: "user", content: [{ type: "text", text: "and this" }, { type: "image", image }], source: "user" },
      { role: "tool", callId: "c", toolName: "t", content: [], isError: true, source: "tool" },
    ];
    const request = freezeRequest({ ...base, messages });
    const items = await Promise.all(request.messages.map((message) => serializeMessageItems(message, { attachments: store })));
    // The answer of only an empty text leaves no item, and no comma for it.
    expect(items[4]).toBe("");
    const wire = await serializeRequest(request, { attachments: store });
    expect(wire.slice(wire.indexOf(',"input":[') + 10, -2)).toBe(items.filter((item) => item !== "").join(","));
    await expect(serializeMessageItems(messages[5]!)).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
  });

  it("asks for the provider's cache diagnosis by naming the previous answer, beside any prompt_cache_options given", async () => {
    const diagnosed = { ...withConfig({ cacheDiagnostics: true }), previousResponseId: "resp_1" };
    expect(JSON.parse(await body(diagnosed, true)).prompt_cache_options).toEqual({ comparison_response_id: "resp_1" });
    const merged = { ...withConfig({ cacheDiagnostics: true, extensions: { prompt_cache_options: { mode: "explicit" } } }), previousResponseId: "resp_1" };
    expect(await body(merged, true)).toContain('"prompt_cache_options":{"comparison_response_id":"resp_1","mode":"explicit"}');
    // The first request has nothing to compare with; without the opt-in an id is not sent.
    expect(await body(withConfig({ cacheDiagnostics: true }), true)).not.toContain("prompt_cache_options");
    expect(await body({ ...base, previousResponseId: "resp_1" }, true)).not.toContain("resp_1");
    await expect(body(diagnosed, false)).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", message: "gpt-5.6 gives no prompt cache diagnostics (GPT-5.6 and later do): leave config.cacheDiagnostics unset" });
    // Breakpoints are off unless the wire profile says the model takes them.
    await expect(serializeRequest(freezeRequest(structuredClone(diagnosed)))).rejects.toMatchObject({ message: expect.stringContaining("gives no prompt cache diagnostics") });
    // prompt_cache_options that are no object give way to the comparison.
    for (const given of ["x", ["mode"]]) {
      const odd = { ...withConfig({ cacheDiagnostics: true, extensions: { prompt_cache_options: given } }), previousResponseId: "resp_1" };
      expect(JSON.parse(await body(odd, true)).prompt_cache_options).toEqual({ comparison_response_id: "resp_1" });
    }
  });

  it("asks for a structured answer in text.format, the schema's keys sorted", async () => {
    const sent = await body(withConfig({ responseFormat: { name: "w", schema: { type: "object", required: ["b"], properties: { b: { type: "string" } } }, strict: true } }));
    expect(sent).toContain('"text":{"format":{"type":"json_schema","name":"w","schema":{"properties":{"b":{"type":"string"}},"required":["b"],"type":"object"},"strict":true}},"include"');
    expect(await body(withConfig({ responseFormat: { name: "w", schema: {} } }))).toContain('"text":{"format":{"type":"json_schema","name":"w","schema":{}}}');
    await expect(body(withConfig({ extensions: { text: {} } }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
  });
});
