import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { freezeRequest, type GenerateOptions } from "dsh-llm";
import { makePng } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { layoutRequest } from "./blocks.js";
import { placeBreakpoints, serializeRequest, wireBlockJson } from "./serialize.js";
import { toolSessionRequest } from "./test-support/session.js";

const base: GenerateOptions = {
  config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 2048, reasoningEffort: "high", stop: ["END"], cachePolicy: "rolling-v1", cacheTtl: "1h" },
  messages: [
    { role: "system", content: "Be brief.", source: "system-prompt" },
    { role: "user", content: [{ type: "text", text: "list" }], source: "user" },
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "from another provider" },
        { type: "reasoning", text: "I should list.", signature: "c2ln" },
        { type: "redacted-reasoning", data: "ZW5j" },
        { type: "text", text: "" },
        { type: "tool-call", callId: "toolu_a", name: "list_dir", arguments: '{"path": ".", "10": true}' },
        { type: "tool-call", callId: "toolu_b", name: "list_dir", arguments: "" },
      ],
      source: "model",
    },
    { role: "tool", callId: "toolu_a", toolName: "list_dir", content: [{ type: "text", text: "a.txt" }], isError: false, source: "tool" },
    { role: "tool", callId: "toolu_b", toolName: "list_dir", content: [], isError: true, source: "tool" },
  ],
  tools: [{ name: "list_dir", description: "List", parameters: { type: "object", properties: { path: { type: "string" } } } }],
};

describe("serializeRequest", () => {
  it("writes content as block arrays in a fixed key order, raw tool input, signed thinking only, and the policy's markers", async () => {
    expect(await serializeRequest(freezeRequest(structuredClone(base)))).toBe(
      '{"model":"claude-sonnet-4-6","max_tokens":2048,' +
        '"system":[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral","ttl":"1h"}}],' +
        '"tools":[{"name":"list_dir","description":"List","input_schema":{"properties":{"path":{"type":"string"}},"type":"object"}}],' +
        '"messages":[{"role":"user","content":[{"type":"text","text":"list","cache_control":{"type":"ephemeral","ttl":"1h"}}]},' +
        '{"role":"assistant","content":[{"type":"thinking","thinking":"I should list.","signature":"c2ln"},{"type":"redacted_thinking","data":"ZW5j"},' +
        '{"type":"tool_use","id":"toolu_a","name":"list_dir","input":{"path": ".", "10": true}},{"type":"tool_use","id":"toolu_b","name":"list_dir","input":{}}]},' +
        '{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":[{"type":"text","text":"a.txt"}]},' +
        '{"type":"tool_result","tool_use_id":"toolu_b","is_error":true,"cache_control":{"type":"ephemeral","ttl":"1h"}}]}],' +
        '"stop_sequences":["END"],"thinking":{"type":"adaptive"},"output_config":{"effort":"high"},"stream":true}',
    );
  });

  it("sends signed thinking exactly as logged, surrounding whitespace included, and an empty stop list as such", async () => {
    const thinking = "\n  Let me check the listing.  \n";
    const request = freezeRequest({
      config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 2048, stop: [] },
      messages: [
        { role: "user", content: [{ type: "text", text: "list" }], source: "user" },
        { role: "assistant", content: [{ type: "reasoning", text: thinking, signature: "c2ln" }, { type: "text", text: " Done. " }], source: "model" },
        { role: "user", content: [{ type: "text", text: "ok" }], source: "user" },
      ],
    });
    const body = await serializeRequest(request);
    expect(body).toContain(`{"type":"thinking","thinking":${JSON.stringify(thinking)},"signature":"c2ln"},{"type":"text","text":" Done. "}`);
    expect(body.endsWith(',"stop_sequences":[],"stream":true}')).toBe(true);
  });

  it("leaves out empty and whitespace-only text, and a message left with nothing, instead of sending what the API refuses", async () => {
    const request = freezeRequest({
      config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 2048 },
      messages: [
        { role: "system", content: " \n", source: "system-prompt" },
        { role: "user", content: [{ type: "text", text: "\n" }, { type: "text", text: "list" }], source: "user" },
        { role: "assistant", content: [{ type: "reasoning", text: "unsigned, from another provider" }, { type: "text", text: "\t" }], source: "model" },
        { role: "user", content: [{ type: "text", text: "again" }], source: "user" },
        { role: "assistant", content: [], source: "model" },
        { role: "tool", callId: "t", toolName: "x", content: [{ type: "text", text: "  " }], isError: false, source: "tool" },
      ],
    });
    expect(await serializeRequest(request)).toBe(
      '{"model":"claude-haiku-4-5","max_tokens":2048,"messages":[{"role":"user","content":[{"type":"text","text":"list"},{"type":"text","text":"again"},{"type":"tool_result","tool_use_id":"t"}]}],"stream":true}',
    );
  });

  it("places no marker without a logged cache policy and refuses a policy it does not know", async () => {
    const { cachePolicy: _policy, ...config } = base.config;
    expect(await serializeRequest(freezeRequest({ ...structuredClone(base), config }))).not.toContain("cache_control");
    await expect(serializeRequest(freezeRequest({ ...structuredClone(base), config: { ...config, cachePolicy: "mine-v9" } }))).rejects.toMatchObject({
      code: "LLM_INVALID_REQUEST",
      message: "unknown cache policy mine-v9: use rolling-v1, system-and-last-user-v1, none",
    });
  });

  it.each([
    ["claude-opus-4-8", "xhigh", '"thinking":{"type":"adaptive"},"output_config":{"effort":"xhigh"}'],
    ["claude-opus-4-6", "xhigh", '"thinking":{"type":"adaptive"},"output_config":{"effort":"high"}'],
    ["claude-sonnet-4-6", "minimal", '"thinking":{"type":"adaptive"},"output_config":{"effort":"low"}'],
    ["claude-haiku-4-5", "medium", '"thinking":{"type":"enabled","budget_tokens":8192}'],
    ["claude-haiku-4-5", "max", '"thinking":{"type":"enabled","budget_tokens":9999}'],
    ["deepseek-v4-pro", "low", '"thinking":{"type":"enabled","budget_tokens":2048}'],
  ] as const)("sends %s at effort %s as %s", async (model, reasoningEffort, fields) => {
    const body = await serializeRequest(freezeRequest({ ...structuredClone(base), config: { provider: "anthropic", model, maxTokens: 10_000, reasoningEffort } }));
    expect(body.endsWith(`${fields},"stream":true}`)).toBe(true);
  });

  it("sends no thinking field for effort none, and refuses what the API would refuse before sending", async () => {
    const request = (config: Partial<GenerateOptions["config"]>) => freezeRequest({ ...structuredClone(base), config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 4096, ...config } });
    expect(await serializeRequest(request({ reasoningEffort: "none" }))).not.toContain('"thinking":{');
    await expect(serializeRequest(request({ maxTokens: 1024, reasoningEffort: "low" }))).rejects.toMatchObject({
      code: "LLM_INVALID_REQUEST",
      retryable: false,
      message: "thinking needs maxTokens above 1024 (a budget of at least 1024 below it); maxTokens is 1024",
    });
    expect(await serializeRequest(request({ maxTokens: 1025, reasoningEffort: "max" }))).toContain('"thinking":{"type":"enabled","budget_tokens":1024}');
    await expect(serializeRequest(request({ model: "claude-opus-4-8", temperature: 0.2 }))).rejects.toMatchObject({ retryable: false, message: "claude-opus-4-8 takes no temperature" });
    expect(await serializeRequest(request({ temperature: 0.2 }))).toContain('"temperature":0.2,');
    expect(await serializeRequest(request({ model: "some-endpoint-model", temperature: 0 }))).toContain('"temperature":0,');
    const { maxTokens: _max, ...noLimit } = base.config;
    await expect(serializeRequest(freezeRequest({ ...structuredClone(base), config: noLimit }))).rejects.toMatchObject({ message: "config.maxTokens is required by the Messages API" });
    await expect(serializeRequest(request({ extensions: { output_config: {} } }))).rejects.toMatchObject({ message: "extension output_config would override a field the adapter sets" });
    for (const [key, what] of [["container", "the files and state of a code-execution container"], ["context_management", "an input the provider edits"], ["mcp_servers", "tool lists the provider fetches"]]) {
      await expect(serializeRequest(request({ extensions: { [key!]: {} } }))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: expect.stringMatching(new RegExp(`^extension ${key} makes the model read ${what}`)) });
    }
    const stray = freezeRequest({ ...structuredClone(base), messages: [...base.messages, { role: "system", content: "later", source: "inject" }] });
    await expect(serializeRequest(stray)).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
  });

  it("leaves out system and tools when there are none, and takes a thinking extension when no effort sets one", async () => {
    const thinking = { type: "enabled", budget_tokens: 2000 };
    const bare = freezeRequest({ config: { provider: "anthropic", model: "claude-haiku-4-5", maxTokens: 4096, extensions: { thinking } }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
    expect(await serializeRequest(bare)).toBe('{"model":"claude-haiku-4-5","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"thinking":{"budget_tokens":2000,"type":"enabled"},"stream":true}');
    const both = freezeRequest({ ...bare, config: { ...bare.config, reasoningEffort: "low" } });
    await expect(serializeRequest(both)).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST", retryable: false, message: "extension thinking would override a field the adapter sets" });
  });

  it("sends an extension with sorted keys, and one named __proto__ as a field", async () => {
    const extensions = JSON.parse('{"metadata":{"user_id":"u","a":1},"__proto__":{"x":1}}') as Record<string, never>;
    const body = await serializeRequest(freezeRequest({ ...structuredClone(base), config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, extensions } }));
    expect(body.endsWith('"__proto__":{"x":1},"metadata":{"a":1,"user_id":"u"},"stream":true}')).toBe(true);
  });

  it("sends images as verified base64 blocks, in user messages and tool results, and fails loudly on an altered object", async () => {
    const store = new MemoryAttachmentStore();
    const png = makePng(2, 1);
    const image = await putImage(store, png);
    const request = freezeRequest({
      ...structuredClone(base),
      messages: [
        base.messages[0]!,
        { role: "user", content: [{ type: "text", text: "what is this?" }, { type: "image", image }], source: "user" },
        { role: "assistant", content: [{ type: "tool-call", callId: "toolu_s", name: "list_dir", arguments: "{}" }], source: "model" },
        { role: "tool", callId: "toolu_s", toolName: "list_dir", content: [{ type: "image", image }], isError: false, source: "tool" },
      ],
    });
    const body = JSON.parse(await serializeRequest(request, { attachments: store })) as { messages: { content: { type: string; source?: unknown; content?: unknown[] }[] }[] };
    const source = { type: "base64", media_type: "image/png", data: Buffer.from(png).toString("base64") };
    expect(body.messages[0]!.content[1]).toMatchObject({ type: "image", source });
    expect(body.messages[2]!.content[0]!.content).toEqual([{ type: "image", source }]);
    await expect(serializeRequest(request)).rejects.toMatchObject({ code: "LLM_ATTACHMENT" });
    await expect(serializeRequest(request, { attachments: new MemoryAttachmentStore() })).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
    const altered = freezeRequest({ ...structuredClone(base), messages: [base.messages[0]!, { role: "user", content: [{ type: "image", image: { ...image, width: 3 } }], source: "user" }] });
    await expect(serializeRequest(altered, { attachments: store })).rejects.toMatchObject({ code: "ATTACHMENT_METADATA_MISMATCH" });
  });

  it("rebuilds the same bytes from a log's JSON copy of any request, with at most four markers", async () => {
    const step = fc.record({ thinking: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), calls: fc.integer({ min: 1, max: 20 }) });
    const policy = fc.constantFrom("rolling-v1", "system-and-last-user-v1", "none");
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 6 }), policy, async (steps, cachePolicy) => {
        const request = toolSessionRequest(steps, cachePolicy);
        const live = await serializeRequest(freezeRequest(request));
        const logged = freezeRequest(JSON.parse(JSON.stringify(request)) as GenerateOptions);
        expect(await serializeRequest(logged)).toBe(live);
        expect(live.split('"cache_control"').length - 1).toBeLessThanOrEqual(4);
        expect(() => JSON.parse(live) as unknown).not.toThrow();
      }),
      { numRuns: 60 },
    );
  });
});

describe("wireBlockJson", () => {
  it("writes each block as the body carries it, with the marker where a breakpoint falls", async () => {
    const request = freezeRequest(toolSessionRequest([{ thinking: "hm", calls: 2 }, { calls: 1 }]));
    const body = JSON.parse(await serializeRequest(request)) as { tools: unknown[]; system: unknown[]; messages: { content: unknown[] }[] };
    const layout = await layoutRequest(request.messages, request.tools, undefined);
    const marks = new Set(placeBreakpoints(request, layout));
    expect(marks.size).toBeGreaterThan(0);
    const blocks = layout.blocks.map((block, i) => JSON.parse(wireBlockJson(block, marks.has(i) ? "5m" : undefined)) as unknown);
    expect(blocks).toEqual([...body.tools, ...body.system, ...body.messages.flatMap((message) => message.content)]);
  });
});

describe("structured output", () => {
  it("joins the effort in output_config as a json_schema format, the schema's keys sorted", async () => {
    const messages = [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }], source: "user" }];
    const responseFormat = { name: "w", schema: { type: "object", properties: { b: { type: "string" } } } };
    const withEffort = await serializeRequest(freezeRequest({ config: { provider: "anthropic", model: "claude-opus-4-8", maxTokens: 100, reasoningEffort: "high", responseFormat }, messages }));
    expect(withEffort).toContain('"output_config":{"effort":"high","format":{"type":"json_schema","schema":{"properties":{"b":{"type":"string"}},"type":"object"}}},"stream":true}');
    const alone = await serializeRequest(freezeRequest({ config: { provider: "anthropic", model: "claude-opus-4-8", maxTokens: 100, responseFormat }, messages }));
    expect(alone).toContain('"output_config":{"format":{"type":"json_schema","schema":{"properties":{"b":{"type":"string"}},"type":"object"}}},"stream":true}');
  });
});
