import { createHash } from "node:crypto";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCacheFile } from "./cache-file.js";
import { renderMessagesPrompt } from "./messages-prompt.js";
import { startSimulator, type Simulator, type SimulatorOptions } from "./server.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: Partial<SimulatorOptions> = {}): Promise<Simulator> {
  sim = await startSimulator({ scenario: { responses: Array.from({ length: 8 }, () => ({ text: "ok", toolCalls: [{ name: "t", arguments: {} }] })) }, ...options });
  return sim;
}

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; retry: string | null }> {
  const response = await fetch(`${sim!.origin}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return { status: response.status, text: await response.text(), retry: response.headers.get("retry-after") };
}

const sha = (text: string, length: number) => createHash("sha256").update(text).digest("hex").slice(0, length);
const chat = JSON.stringify({ model: "sim-1", messages: [{ role: "user", content: "hi" }], stream: true });
const long = "A sentence that makes the system prompt long enough to cache. ".repeat(200);
const messages = JSON.stringify({ model: "claude-sonnet-4-6", max_tokens: 64, stream: true, system: [{ type: "text", text: long, cache_control: { type: "ephemeral", ttl: "5m" } }], messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
const gemini = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] });
const responses = (extra: object = {}) => JSON.stringify({ model: "gpt-5.6", input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }], store: false, ...extra });
const refused = { promptTokens: 0, cacheHitTokens: 0, cacheWriteTokens: 0, fault: undefined };

describe("the simulator's routes and refusals", () => {
  it("answers only POSTs to the four APIs, with or without a query, and names the route it does not know", async () => {
    await start();
    const get = await fetch(`${sim!.url}/models`);
    expect([get.status, await get.json()]).toEqual([404, { error: { message: "no route for GET /v1/models", type: "simulator_error", param: null, code: "simulator_error" } }]);
    expect((await fetch(`${sim!.url}/chat/completions`)).status).toBe(404);
    expect(await post("/v2/chat/completions", chat)).toMatchObject({ status: 404, text: expect.stringContaining("no route for POST /v2/chat/completions") });
    for (const path of ["/v1/chat/completions?x=1", "/chat/completions"]) expect((await post(path, chat)).status).toBe(200);
    for (const path of ["/v1/responses", "/responses"]) expect((await post(path, responses())).status).toBe(200);
    expect(sim!.exchanges).toHaveLength(4);
  });

  it("refuses a missing or wrong key in each dialect's shape, and takes it from any of the three headers", async () => {
    await start({ apiKey: "k" });
    const chatRefused = await post("/v1/chat/completions", chat, { authorization: "Bearer nope" });
    expect([chatRefused.status, JSON.parse(chatRefused.text)]).toEqual([401, { error: { message: "invalid API key", type: "authentication_error", param: null, code: "authentication_error" } }]);
    expect(JSON.parse((await post("/v1/messages", messages, { "x-api-key": "nope" })).text)).toEqual({ type: "error", error: { type: "authentication_error", message: "invalid API key" } });
    expect(JSON.parse((await post("/v1beta/models/gemini-3.8-flash:streamGenerateContent", gemini)).text)).toEqual({ error: { code: 401, message: "invalid API key", status: "UNAUTHENTICATED" } });
    expect(sim!.exchanges.map(({ body: _body, ...figures }) => figures)).toEqual([refused, refused, refused]);
    expect((await post("/v1/chat/completions", chat, { authorization: "Bearer k" })).status).toBe(200);
    expect((await post("/v1/messages", messages, { "x-api-key": "k" })).status).toBe(200);
    expect((await post("/v1beta/models/gemini-3.8-flash:streamGenerateContent", gemini, { "x-goog-api-key": "k" })).status).toBe(200);
  });

  it("refuses a body that is not JSON as a bad request, recording it", async () => {
    await start();
    const answer = await post("/v1/messages", "{not json");
    expect([answer.status, JSON.parse(answer.text)]).toEqual([400, { type: "error", error: { type: "invalid_request_error", message: "the body is not JSON" } }]);
    expect(sim!.exchanges).toEqual([{ body: "{not json", ...refused }]);
  });

  it("plays a Responses HTTP fault, consuming its scripted reply, and answers the next request with the next one", async () => {
    sim = await startSimulator({ scenario: { responses: [{ fault: "http-429" }, { text: "first" }, { text: "second" }] } });
    const limited = await post("/v1/responses", responses());
    expect([limited.status, limited.retry, JSON.parse(limited.text).error.type]).toEqual([429, "0", "rate_limit_error"]);
    expect((await post("/v1/responses", responses())).text).toContain('"delta":"first"');
    expect((await post("/v1/responses", responses({ instructions: "again" }))).text).toContain('"delta":"second"');
    expect(sim.exchanges.map((exchange) => exchange.fault)).toEqual(["http-429", undefined, undefined]);
  });

  it("records every body it receives to a file, one JSON string a line, that only its owner can read", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "dsh-sim-")), "bodies.jsonl");
    await start({ recordTo: file });
    await post("/v1/chat/completions", chat);
    await post("/v1/chat/completions", "{not json\n");
    expect((await readFile(file, "utf8")).split("\n")).toEqual([JSON.stringify(chat), JSON.stringify("{not json\n"), ""]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("answers a failure of its own with a 500 that names it", async () => {
    await start({ recordTo: join(tmpdir(), "dsh-sim-no-such-directory", "bodies.jsonl") });
    const answer = await post("/v1/chat/completions", chat);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.text).error.message).toMatch(/^simulator failure: ENOENT/);
  });
});

describe("the simulator's answers", () => {
  it("numbers Chat Completions answers by exchange, refusals counted, and names the model `sim` when the body names none", async () => {
    await start();
    await post("/v1/chat/completions", "{not json");
    const text = (await post("/v1/chat/completions", JSON.stringify({ messages: [{ role: "user", content: "hi" }] }))).text;
    expect(text).toContain('{"id":"chatcmpl-2","object":"chat.completion.chunk","model":"sim"');
  });

  it("streams a scripted reasoning in DeepSeek's thinking mode, and a stock one when the script has none", async () => {
    sim = await startSimulator({ scenario: { responses: [{ reasoning: "Mine.", text: "a" }, { text: "b" }] } });
    const thinking = JSON.stringify({ model: "deepseek-v4-flash", messages: [{ role: "user", content: "hi" }], stream: true });
    const reasoning = async () =>
      (await post("/v1/chat/completions", thinking)).text
        .split("\n\n")
        .filter((frame) => frame.startsWith("data: {"))
        .map((frame) => (JSON.parse(frame.slice(6)) as { choices: { delta: { reasoning_content?: string } }[] }).choices[0]?.delta.reasoning_content ?? "")
        .join("");
    expect(await reasoning()).toBe("Mine.");
    expect(await reasoning()).toBe("Let me work out the next step.");
  });

  it("names a Messages answer after its body and its calls after the prompt, counting what the explicit cache read and wrote", async () => {
    await start();
    const first = await post("/v1/messages", messages);
    const blocks = renderMessagesPrompt(JSON.parse(messages));
    expect(first.text).toContain(`"id":"msg_sim_${sha(messages, 12)}"`);
    expect(first.text).toContain(`"id":"toolu_${sha(blocks.at(-1)!.prefixKey, 12)}_0"`);
    const written = blocks[0]!.cumulativeTokens;
    const total = blocks.at(-1)!.cumulativeTokens;
    await post("/v1/messages", messages);
    expect(sim!.exchanges.map(({ body: _body, ...figures }) => figures)).toEqual([
      { promptTokens: total, cacheHitTokens: 0, cacheWriteTokens: written, fault: undefined },
      { promptTokens: total, cacheHitTokens: written, cacheWriteTokens: 0, fault: undefined },
    ]);
  });

  it("names a Gemini answer after its body, and summarizes Responses reasoning only when asked", async () => {
    sim = await startSimulator({ scenario: { responses: [{ text: "ok" }, { reasoning: "Think.", text: "a" }, { reasoning: "Think.", text: "b" }] } });
    expect((await post("/v1beta/models/gemini-3.8-flash:streamGenerateContent", gemini)).text).toContain(`"responseId":"sim_${sha(gemini, 12)}"`);
    const summaries = async (reasoning: object) => {
      const text = (await post("/v1/responses", responses({ reasoning }))).text;
      const done = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6)) as { type: string; item?: { type: string; summary: unknown[] } });
      return done.find((event) => event.type === "response.output_item.done" && event.item?.type === "reasoning")!.item!.summary;
    };
    expect(await summaries({ effort: "low", summary: "auto" })).toEqual([{ type: "summary_text", text: "Think." }]);
    expect(await summaries({ effort: "low" })).toEqual([]);
  });
});

describe("the simulator's server", () => {
  it("listens on the IPv6 loopback and on the port it is given", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "::1", resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise((resolve) => free.close(resolve));
    await start({ host: "::1", port });
    expect([sim!.url, sim!.origin]).toEqual([`http://[::1]:${port}/v1`, `http://[::1]:${port}`]);
    expect((await post("/v1/chat/completions", chat)).status).toBe(200);
  });

  it("moves its clock only forward", async () => {
    await start();
    expect(() => sim!.advanceClock(-1)).toThrow(RangeError);
    expect(() => sim!.advanceClock(Number.NaN)).toThrow("the clock only moves forward");
    sim!.advanceClock(0);
  });

  it("saves explicit cache entries with their wall-clock expiry, leaving out those that expired on its clock", async () => {
    const directory = await mkdtemp(join(tmpdir(), "dsh-sim-"));
    const saved = async (advance: number) => {
      const cacheFile = join(directory, `cache-${advance}.json`);
      const before = Date.now();
      await start({ cacheFile });
      await post("/v1/messages", messages);
      sim!.advanceClock(advance);
      await sim!.close();
      sim = undefined;
      return { explicit: (await readCacheFile(cacheFile)).explicit, before, after: Date.now() };
    };
    const kept = await saved(60_000);
    expect(kept.explicit).toHaveLength(1);
    const [, expiry] = kept.explicit[0]!;
    expect(expiry).toBeGreaterThanOrEqual(kept.before + 300_000);
    expect(expiry).toBeLessThanOrEqual(kept.after + 300_000);
    expect((await saved(300_001)).explicit).toEqual([]);
  });
});
