import { LlmRuntime, freezeRequest, type GenerateOptions, type Message, type StreamChunk } from "dsh-llm";
import { startSimulator } from "dsh-simulator";
import { streamOfReads } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { AnthropicAdapter } from "./adapter.js";
import { CACHE_DIAGNOSIS_BETA, anthropicDiagnosis } from "./diagnosis.js";
import { serializeRequest } from "./serialize.js";
import { parseMessagesStream } from "./stream.js";

const user: Message = { role: "user", content: [{ type: "text", text: "hi" }], source: "user" };
const request = (extra: Partial<GenerateOptions> = {}, diagnostics = true): GenerateOptions => ({
  config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 100, ...(diagnostics ? { cacheDiagnostics: true } : {}) },
  messages: [{ role: "system", content: "Be terse.", source: "system-prompt" }, user],
  ...extra,
});

async function collect(events: object[]): Promise<StreamChunk[]> {
  const text = events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
  const chunks: StreamChunk[] = [];
  for await (const chunk of parseMessagesStream(streamOfReads(new TextEncoder().encode(text), 30), 5_000, { comparing: true })) chunks.push(chunk);
  return chunks;
}

describe("Anthropic's cache diagnostics", () => {
  it("puts the opt-in after the thinking fields: the previous answer's id, or null on the first request", async () => {
    const first = await serializeRequest(freezeRequest(request()));
    expect(first).toContain(',"diagnostics":{"previous_message_id":null},"stream":true}');
    expect(await serializeRequest(freezeRequest(request({ previousResponseId: "msg_1" })))).toContain('"diagnostics":{"previous_message_id":"msg_1"}');
    expect(await serializeRequest(freezeRequest(request({ previousResponseId: "msg_1" }, false)))).not.toContain("diagnostics");
    await expect(serializeRequest(freezeRequest(request({ config: { provider: "anthropic", model: "m", maxTokens: 1, extensions: { diagnostics: {} } } }, false)))).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
  });

  it("reads the diagnosis in dsh's words: null is a hit when a previous answer was named, a null reason is pending", () => {
    expect(anthropicDiagnosis(null, true)).toEqual({ verdict: "hit" });
    expect(anthropicDiagnosis(null, false)).toBeUndefined();
    expect(anthropicDiagnosis({}, true)).toBeUndefined();
    expect(anthropicDiagnosis({ cache_miss_reason: null }, true)).toEqual({ verdict: "pending" });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "tools_changed", cache_missed_input_tokens: 1200 } }, true)).toEqual({ verdict: "miss", reason: "tools_changed", missedTokens: 1200 });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "messages_changed", cache_missed_input_tokens: -3 } }, true)).toStrictEqual({ verdict: "miss", reason: "messages_changed" });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: 7 } }, true)).toStrictEqual({ verdict: "miss", reason: "unknown" });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "" } }, true)).toStrictEqual({ verdict: "miss", reason: "unknown" });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "tools_changed", cache_missed_input_tokens: 0 } }, true)).toStrictEqual({ verdict: "miss", reason: "tools_changed", missedTokens: 0 });
    for (const odd of [1.5, "12", null]) {
      expect(anthropicDiagnosis({ cache_miss_reason: { type: "tools_changed", cache_missed_input_tokens: odd } }, true)).toStrictEqual({ verdict: "miss", reason: "tools_changed" });
    }
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "previous_message_not_found" } }, true)).toEqual({ verdict: "not-found", reason: "previous_message_not_found" });
    expect(anthropicDiagnosis({ cache_miss_reason: { type: "unavailable" } }, true)).toEqual({ verdict: "unavailable", reason: "unavailable" });
  });

  it("takes the answer's id and diagnosis from message_start, and a later diagnosis from message_delta", async () => {
    const chunks = await collect([
      { type: "message_start", message: { id: "msg_9", usage: { input_tokens: 5 }, diagnostics: { cache_miss_reason: null } } },
      { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 1 }, diagnostics: { cache_miss_reason: { type: "system_changed", cache_missed_input_tokens: 4 } } },
      { type: "message_stop" },
    ]);
    expect(chunks.filter((chunk) => chunk.type === "response-info")).toEqual([
      { type: "response-info", responseId: "msg_9", cacheDiagnosis: { verdict: "pending" } },
      { type: "response-info", cacheDiagnosis: { verdict: "miss", reason: "system_changed", missedTokens: 4 } },
    ]);
    expect((await collect([{ type: "message_start", message: { id: "" } }, { type: "message_stop" }])).some((chunk) => chunk.type === "response-info")).toBe(false);
  });

  it("reads no verdict from a null diagnosis on a first request, which compared with nothing", async () => {
    const fetchStub: typeof fetch = async () =>
      new Response(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "msg_1", usage: {}, diagnostics: null } })}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n`, { status: 200, headers: { "content-type": "text/event-stream" } });
    const adapter = new AnthropicAdapter({ baseUrl: "https://example.test", apiKey: "k", fetch: fetchStub });
    const infos = async (extra: Partial<GenerateOptions>) => {
      const chunks: StreamChunk[] = [];
      for await (const chunk of adapter.stream(freezeRequest(request(extra)), { attachments: undefined, signal: undefined })) chunks.push(chunk);
      return chunks.filter((chunk) => chunk.type === "response-info");
    };
    expect(await infos({})).toEqual([{ type: "response-info", responseId: "msg_1" }]);
    expect(await infos({ previousResponseId: "msg_0" })).toEqual([{ type: "response-info", responseId: "msg_1", cacheDiagnosis: { verdict: "hit" } }]);
  });

  it("sends the beta header only with the opt-in", async () => {
    const headers: Record<string, string>[] = [];
    const fetchStub: typeof fetch = async (_url, init) => {
      headers.push({ ...(init?.headers as Record<string, string>) });
      return new Response('event: message_stop\ndata: {"type":"message_stop"}\n\n', { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const adapter = new AnthropicAdapter({ baseUrl: "https://example.test", apiKey: "k", fetch: fetchStub });
    for (const diagnostics of [true, false]) for await (const _chunk of adapter.stream(freezeRequest(request({}, diagnostics)), { attachments: undefined, signal: undefined })) void _chunk;
    expect(headers.map((sent) => sent["anthropic-beta"])).toEqual([CACHE_DIAGNOSIS_BETA, undefined]);
  });

  it("gets the simulator's verdict: a hit on an extension, the system prompt named when it changed", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "one" }, { text: "two" }, { text: "three" }] } });
    try {
      const runtime = new LlmRuntime({ adapters: [new AnthropicAdapter({ baseUrl: sim.origin })] });
      const first = await runtime.generate(request());
      expect(first.responseId).toMatch(/^msg_sim_[0-9a-f]{12}$/);
      expect(first.cacheDiagnosis).toBeUndefined();
      const answered: Message[] = [...request().messages, { role: "assistant", content: first.content, source: "model" }, user];
      const second = await runtime.generate(request({ messages: answered, previousResponseId: first.responseId! }));
      expect(second.cacheDiagnosis).toEqual({ verdict: "hit" });
      const changed: Message[] = [{ role: "system", content: "Be verbose.", source: "system-prompt" }, ...answered.slice(1)];
      const third = await runtime.generate(request({ messages: changed, previousResponseId: second.responseId! }));
      expect(third.cacheDiagnosis).toEqual({ verdict: "miss", reason: "system_changed", missedTokens: sim.exchanges[1]!.promptTokens });
    } finally {
      await sim.close();
    }
  });
});
