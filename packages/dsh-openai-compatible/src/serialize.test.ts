import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { freezeRequest, type GenerateOptions } from "dsh-llm";
import { makePng } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeRequest } from "./serialize.js";

const base: GenerateOptions = {
  config: { provider: "deepseek", model: "deepseek-chat", maxTokens: 512, temperature: 0.2, stop: [], reasoningEffort: "high" },
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
      '{"model":"deepseek-chat","messages":[{"role":"system","content":"  "},{"role":"user","content":"list files"},' +
        '{"role":"assistant","content":null,"reasoning_content":"I should list.","tool_calls":[{"id":"c1","type":"function","function":{"name":"list_dir","arguments":"{\\"path\\": \\".\\"}"}}]},' +
        '{"role":"tool","tool_call_id":"c1","content":"a.txt"},{"role":"assistant","content":"One file.","reasoning_content":"done"}],' +
        '"tools":[{"type":"function","function":{"name":"list_dir","description":"List","parameters":{"properties":{"path":{"type":"string"}},"type":"object"}}}],' +
        '"max_tokens":512,"temperature":0.2,"stop":[],"reasoning_effort":"high","stream":true,"stream_options":{"include_usage":true}}',
    );
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

  it("refuses an extension that would override an adapter field", async () => {
    const request = freezeRequest({ ...structuredClone(base), config: { provider: "p", model: "m", extensions: { stream: false } } });
    await expect(serializeRequest(request, { dialect: "deepseek" })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
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
