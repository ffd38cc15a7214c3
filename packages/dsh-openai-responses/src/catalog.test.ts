import { freezeRequest, isDeepFrozen } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { ResponsesAdapter } from "./adapter.js";
import { DEFAULT_RESPONSES_MODEL, RESPONSES_MODELS, lookupResponsesModel, responsesDefaults, responsesPrice, type ResponsesCatalog } from "./catalog.js";
import { responsesOptionsOfWire, responsesWireProfile } from "./wire-profile.js";

describe("the Responses catalog", () => {
  it("gives GPT-5.6 models an effort and the rolling-v1 policy, older ones an effort only, unknown ones nothing", () => {
    expect(responsesDefaults(RESPONSES_MODELS, DEFAULT_RESPONSES_MODEL)).toEqual({ reasoningEffort: "medium", cachePolicy: "rolling-v1" });
    expect(responsesDefaults(RESPONSES_MODELS, "gpt-5.5")).toEqual({ reasoningEffort: "medium" });
    expect(responsesDefaults(RESPONSES_MODELS, "my-fine-tune")).toEqual({});
    expect(lookupResponsesModel(RESPONSES_MODELS, "gpt-5.6-luna")).toMatchObject({ contextWindow: 400_000, cacheControls: "breakpoints" });
  });

  it("prices GPT-5.6 with breakpoint writes at 1.25x input and reads at 0.1x, older models with reads only, unknown ones not at all", () => {
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.6")).toMatchObject({ input: 5, cacheRead: 0.5, cacheWrite5m: 6.25, output: 30, checked: "2026-12-04" });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.6-sol")).toEqual(responsesPrice(RESPONSES_MODELS, "gpt-5.6"));
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.6-terra")).toMatchObject({ input: 2.5, cacheRead: 0.25, cacheWrite5m: 3.125, output: 15 });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.6-luna")).toMatchObject({ input: 1, cacheRead: 0.1, cacheWrite5m: 1.25, output: 6 });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.5")).toMatchObject({ input: 5, cacheRead: 0.5, output: 30 });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.4")).toMatchObject({ input: 2.5, cacheRead: 0.25, output: 15 });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.4-mini")).toMatchObject({ input: 0.75, cacheRead: 0.075, output: 4.5 });
    expect(responsesPrice(RESPONSES_MODELS, "gpt-5.4")?.cacheWrite5m).toBeUndefined();
    expect(responsesPrice(RESPONSES_MODELS, "my-fine-tune")).toBeUndefined();
    const adapter = new ResponsesAdapter({ baseUrl: "http://127.0.0.1:9" });
    expect(adapter.price("gpt-5.6-luna")).toEqual(responsesPrice(RESPONSES_MODELS, "gpt-5.6-luna"));
    expect(adapter.price("my-fine-tune")).toBeUndefined();
  });

  it("refuses a retired name, naming the replacement, and does not mistake inherited names for models", () => {
    expect(() => lookupResponsesModel(RESPONSES_MODELS, "gpt-4.5-preview")).toThrow(expect.objectContaining({ code: "LLM_MODEL_RETIRED", retryable: false, message: "openai retired gpt-4.5-preview on 2025-07-14: use gpt-5.5" }));
    expect(lookupResponsesModel(RESPONSES_MODELS, "constructor")).toBeUndefined();
  });

  it("is frozen, and an adapter holds a caller's catalog by value", () => {
    expect(isDeepFrozen(RESPONSES_MODELS)).toBe(true);
    const catalog = structuredClone(RESPONSES_MODELS) as { models: Record<string, { defaultReasoningEffort: string; cacheControls: string }> };
    const adapter = new ResponsesAdapter({ baseUrl: "http://127.0.0.1:9/v1", catalog: catalog as unknown as ResponsesCatalog });
    catalog.models["gpt-5.6"]!.defaultReasoningEffort = "low";
    catalog.models["gpt-5.6"]!.cacheControls = "retention";
    expect(adapter.modelDefaults("gpt-5.6")).toEqual({ reasoningEffort: "medium", cachePolicy: "rolling-v1" });
    expect(adapter.wireProfile("gpt-5.6")).toEqual({ api: "responses", breakpoints: true });
    expect(adapter.wireProfile("gpt-5.5")).toEqual({ api: "responses", breakpoints: false });
    expect(adapter.wireProfile("my-fine-tune")).toEqual({ api: "responses", breakpoints: false });
  });
});

describe("the wire profile", () => {
  it("round-trips through the header, and anything else is refused", () => {
    expect(responsesOptionsOfWire(responsesWireProfile(true))).toEqual({ breakpoints: true });
    expect(responsesOptionsOfWire(responsesWireProfile(false))).toEqual({ breakpoints: false });
    expect(() => responsesOptionsOfWire(undefined)).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "the header's wire profile (none) is not a Responses API profile" }));
    expect(() => responsesOptionsOfWire({ api: "responses" })).toThrow(/not a Responses API profile/);
    expect(() => responsesOptionsOfWire({ api: "chat-completions", breakpoints: true })).toThrow(/not a Responses API profile/);
  });
});

describe("the adapter's endpoint", () => {
  it("refuses a base URL that is not one or that carries credentials", () => {
    expect(() => new ResponsesAdapter({ baseUrl: "not a url" })).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl is not a URL" }));
    for (const baseUrl of ["https://u:p@example.test/v1", "https://u@example.test/v1", "https://:p@example.test/v1"]) {
      expect(() => new ResponsesAdapter({ baseUrl })).toThrow(expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "baseUrl carries credentials: give the key as apiKey" }));
    }
  });

  it("posts to /responses under the base path (query kept), with the key as a bearer token only when there is one, and redacts it", async () => {
    const seen: { url: string; headers: Record<string, string> }[] = [];
    const fetchStub: typeof fetch = async (url, init) => {
      seen.push({ url: String(url), headers: { ...(init?.headers as Record<string, string>) } });
      return new Response("event: response.completed\ndata: {\"type\":\"response.completed\"}\n\n", { status: 200, headers: { "content-type": "text/event-stream" } });
    };
    const request = freezeRequest({ config: { provider: "openai-responses", model: "gpt-5.5" }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }] });
    const drain = async (adapter: ResponsesAdapter) => {
      for await (const _chunk of adapter.stream(request, { attachments: undefined, signal: undefined })) void _chunk;
    };
    await drain(new ResponsesAdapter({ baseUrl: "https://example.test/v1//?x=1", apiKey: "sk-secret-0123456789", fetch: fetchStub }));
    await drain(new ResponsesAdapter({ baseUrl: "https://example.test/", fetch: fetchStub }));
    expect(seen.map((call) => call.url)).toEqual(["https://example.test/v1/responses?x=1", "https://example.test/responses"]);
    expect(seen[0]!.headers).toEqual({ "content-type": "application/json", accept: "text/event-stream", authorization: "Bearer sk-secret-0123456789" });
    expect(seen[1]!.headers).toEqual({ "content-type": "application/json", accept: "text/event-stream" });
    expect(new ResponsesAdapter({ baseUrl: "https://example.test", apiKey: "sk-secret-0123456789" }).redact("key sk-secret-0123456789 here")).not.toContain("sk-secret-0123456789");
  });
});
