import { afterEach, describe, expect, it } from "vitest";
import { geminiCacheMinimum } from "./gemini-serve.js";
import { signsCalls } from "./gemini-rules.js";
import { startSimulator, type Simulator } from "./server.js";
import type { Scenario } from "./scenario.js";

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

type Chunk = { candidates?: { content: { parts: Record<string, unknown>[] }; finishReason?: string }[]; usageMetadata?: Record<string, number>; error?: { status: string } };

async function start(scenario: Scenario = { responses: Array.from({ length: 8 }, () => ({ reasoning: "Think.", text: "ok", toolCalls: [{ name: "t", arguments: { a: 1 } }] })) }, apiKey?: string): Promise<Simulator> {
  sim = await startSimulator({ scenario, ...(apiKey === undefined ? {} : { apiKey }) });
  return sim;
}

/** POSTs a Gemini body; returns the status and the parsed chunks (or Google's error). */
async function post(body: object, model = "gemini-3.8-flash", headers: Record<string, string> = {}): Promise<{ status: number; chunks: Chunk[]; error?: { code: number; message: string; status: string } }> {
  const response = await fetch(`${sim!.origin}/v1beta/models/${model}:streamGenerateContent?alt=sse`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, chunks: [], error: (JSON.parse(text) as { error: { code: number; message: string; status: string } }).error };
  return { status: 200, chunks: text.split("\r\n\r\n").filter((frame) => frame.startsWith("data: ")).map((frame) => JSON.parse(frame.slice(6)) as Chunk) };
}

const long = "All work and no play makes a long prompt. ".repeat(500);
const user = (text: string) => ({ role: "user", parts: [{ text }] });
const partsOf = (chunks: Chunk[]) => chunks.flatMap((chunk) => chunk.candidates?.[0]?.content.parts ?? []);
const thinking = { generationConfig: { thinkingConfig: { thinkingLevel: "high", includeThoughts: true } } };

describe("the Gemini dialect", () => {
  it("answers with thoughts, text and signed calls without ids, and accepts the model's content back as it came", async () => {
    await start();
    const first = await post({ ...thinking, contents: [user("hi")] });
    const parts = partsOf(first.chunks).filter((part) => part.text !== "");
    expect(parts.map((part) => Object.keys(part).sort().join("+"))).toEqual(["text+thought", "text", "functionCall+thoughtSignature"]);
    expect(parts[2]!.functionCall).toEqual({ name: "t", args: { a: 1 } });
    expect(first.chunks.at(-1)!.candidates![0]!.finishReason).toBe("STOP");
    expect(first.chunks.at(-1)!.usageMetadata).toMatchObject({ promptTokenCount: expect.any(Number), thoughtsTokenCount: expect.any(Number) });
    const back = await post({ ...thinking, contents: [user("hi"), { role: "model", parts }, { role: "user", parts: [{ functionResponse: { name: "t", response: { output: "done" } } }] }] });
    expect(back.status).toBe(200);
    // Arguments are read as values: the same call with its keys in another order still verifies.
    const reordered = { ...parts[2]!, functionCall: { args: { a: 1 }, name: "t" } };
    expect((await post({ contents: [user("hi"), { role: "model", parts: [reordered] }, { role: "user", parts: [{ functionResponse: { name: "t", response: {} } }] }] })).status).toBe(200);
  });

  it("refuses a dropped signature in the current turn, an altered one anywhere, and accepts an unsigned call from an earlier turn", async () => {
    await start();
    const call = { functionCall: { name: "t", args: {} } };
    const answer = [{ role: "model", parts: [call] }, { role: "user", parts: [{ functionResponse: { name: "t", response: {} } }] }];
    const dropped = await post({ contents: [user("hi"), ...answer] });
    expect(dropped).toMatchObject({ status: 400, error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("missing a thought_signature") } });
    expect((await post({ contents: [user("hi"), ...answer] }, "gemini-2.5-flash-lite")).status).toBe(200);
    expect((await post({ contents: [user("hi"), ...answer, { role: "model", parts: [{ text: "done" }] }, user("next")] })).status).toBe(200);
    const altered = await post({ contents: [user("hi"), { role: "model", parts: [{ ...call, thoughtSignature: "AAAA" }] }, { role: "user", parts: [{ functionResponse: { name: "t", response: {} } }] }, user("next")] });
    expect(altered.error?.message).toContain("Corrupted thought signature in contents[1]");
    expect(sim!.exchanges.filter((exchange) => exchange.promptTokens > 0)).toHaveLength(2);
  });

  it("refuses empty contents, empty parts, an empty text part, unanswered calls and an unknown thinking level, as Google words them", async () => {
    await start();
    expect((await post({ contents: [] })).error?.message).toContain("contents is not specified");
    expect((await post({ contents: [{ role: "user", parts: [] }] })).error?.message).toContain("contents[0].parts: contents.parts must not be empty");
    expect((await post({ contents: [user("")] })).error?.message).toContain("empty text part");
    const calls = { role: "model", parts: [{ functionCall: { name: "a", args: {} } }, { functionCall: { name: "b", args: {} } }] };
    expect((await post({ contents: [user("hi"), calls, { role: "user", parts: [{ functionResponse: { name: "a", response: {} } }] }] }, "sim-1")).error?.message).toContain("function response parts (1) is equal to the number of function call parts of the function call turn (2)");
    expect((await post({ generationConfig: { thinkingConfig: { thinkingLevel: "max" } }, contents: [user("hi")] })).error?.message).toContain("thinking_level");
  });

  it("serves the implicit cache from the model's minimum, checks x-goog-api-key, and plays faults in Google's shapes", async () => {
    expect([geminiCacheMinimum("gemini-3.8-flash"), geminiCacheMinimum("gemini-2.5-flash-lite"), geminiCacheMinimum("sim-1")]).toEqual([4096, 2048, 1024]);
    expect([signsCalls("gemini-3.8-flash"), signsCalls("gemini-10-pro"), signsCalls("gemini-2.5-flash"), signsCalls("sim-1")]).toEqual([true, true, false, false]);
    await start({ responses: [{ text: "a" }, { text: "b" }, { text: "c", fault: "http-429" }, { text: "d", fault: "overloaded" }] }, "AIza-key");
    const body = { systemInstruction: { parts: [{ text: long }] }, contents: [user("hi")] };
    expect((await post(body, "gemini-3.8-flash", { "x-goog-api-key": "wrong" })).error).toMatchObject({ code: 401, status: "UNAUTHENTICATED" });
    const key = { "x-goog-api-key": "AIza-key" };
    await post(body, "gemini-3.8-flash", key);
    const second = await post(body, "gemini-3.8-flash", key);
    expect(second.chunks.at(-1)!.usageMetadata!.cachedContentTokenCount).toBeGreaterThanOrEqual(4096);
    expect(sim!.exchanges.at(-1)!.cacheHitTokens).toBe(second.chunks.at(-1)!.usageMetadata!.cachedContentTokenCount);
    expect((await post(body, "gemini-3.8-flash", key)).error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect((await post(body, "gemini-3.8-flash", key)).chunks.at(-1)!.error).toMatchObject({ status: "UNAVAILABLE" });
    const wrongPath = await fetch(`${sim!.origin}/v1beta/models/x:generateContent`, { method: "POST", body: "{}" });
    expect(wrongPath.status).toBe(404);
  });

  it("answers the explore policy from the contents", async () => {
    await start({ policy: "explore" });
    const tools = [{ functionDeclarations: [{ name: "list_dir" }, { name: "read_file" }] }];
    const first = await post({ tools, contents: [user("look")] }, "sim-1");
    expect(partsOf(first.chunks).find((part) => part.functionCall !== undefined)?.functionCall).toMatchObject({ name: "list_dir" });
  });
});
