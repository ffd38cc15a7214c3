import { afterEach, describe, expect, it, vi } from "vitest";
import { decryptReasoning, encryptReasoning, renderResponsesPrompt } from "./responses-prompt.js";
import { requiredReasoning } from "./responses-rules.js";
import { startSimulator, type Simulator } from "./server.js";

/** Counts the MACs made: a reasoning item checked once is not checked again. */
const macs = vi.hoisted(() => ({ made: 0 }));
vi.mock("node:crypto", async (original) => {
  const crypto = await original<typeof import("node:crypto")>();
  return { ...crypto, createHmac: (...args: Parameters<typeof crypto.createHmac>) => (macs.made++, crypto.createHmac(...args)) };
});

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(responses = 8): Promise<Simulator> {
  sim = await startSimulator({ scenario: { responses: Array.from({ length: responses }, () => ({ reasoning: "Think.", text: "ok", toolCalls: [{ name: "t", arguments: {} }] })) } });
  return sim;
}

/** POSTs a Responses body; returns the status and the parsed events (or error body). */
async function post(body: object): Promise<{ status: number; events: { type: string; [key: string]: unknown }[]; error?: string }> {
  const response = await fetch(`${sim!.url}/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, events: [], error: (JSON.parse(text) as { error: { message: string } }).error.message };
  return { status: 200, events: text.split("\n").filter((line) => line.startsWith("data: ")).map((line) => JSON.parse(line.slice(6))) };
}

const long = "All work and no play makes a long prompt. ".repeat(150);
const developer = (mark = false) => ({ type: "message", role: "developer", content: [{ type: "input_text", text: long, ...(mark ? { prompt_cache_breakpoint: { mode: "explicit" } } : {}) }] });
const user = (text: string, mark = false) => ({ type: "message", role: "user", content: [{ type: "input_text", text, ...(mark ? { prompt_cache_breakpoint: { mode: "explicit" } } : {}) }] });
const outputOf = (events: { type: string; [key: string]: unknown }[]) => (events.at(-1)!.response as { output: { type: string; id: string }[]; usage: { input_tokens: number; input_tokens_details: { cached_tokens: number; cache_write_tokens?: number } } });

describe("the Responses dialect", () => {
  it("answers with reasoning (encrypted so it can check it later), text and calls, and accepts them back in order", async () => {
    await start();
    const first = await post({ model: "gpt-5.6", reasoning: { effort: "medium" }, input: [user("hi")], store: false });
    const output = outputOf(first.events).output;
    expect(output.map((item) => item.type)).toEqual(["reasoning", "message", "function_call"]);
    expect(first.events.map((event) => event.type)).toContain("response.output_text.delta");
    const back = await post({ model: "gpt-5.6", reasoning: { effort: "medium" }, input: [user("hi"), ...output, { type: "function_call_output", call_id: (output[2] as unknown as { call_id: string }).call_id, output: "done" }] });
    expect(back.status).toBe(200);
  });

  it("refuses what a stateless request cannot carry: history on the server, reasoning without its content or altered, a call without its reasoning", async () => {
    await start();
    const output = outputOf((await post({ model: "gpt-5.6", reasoning: { effort: "low" }, input: "hi" })).events).output;
    const [reasoning, , call] = output as unknown as [Record<string, unknown>, unknown, Record<string, unknown>];
    expect(await post({ model: "gpt-5.6", input: "hi", previous_response_id: "resp_1" })).toMatchObject({ status: 404, error: "Previous response with id 'resp_1' not found." });
    expect((await post({ model: "gpt-5.6", input: [{ ...reasoning, encrypted_content: undefined }] })).error).toContain("Items are not persisted when `store` is set to false");
    expect((await post({ model: "gpt-5.6", input: [{ ...reasoning, encrypted_content: encryptReasoning("rs_other", "Think.") }] })).error).toContain("could not be verified");
    expect((await post({ model: "gpt-5.6", input: [{ ...reasoning, summary: undefined }] })).error).toContain("'summary'");
    expect((await post({ model: "gpt-5.6", input: [call] })).error).toBe(`Item '${String(call.id)}' of type 'function_call' was provided without its required 'reasoning' item: '${String(reasoning.id)}'.`);
    expect((await post({ model: "gpt-5.6", input: [call, reasoning] })).status).toBe(400);
    expect(sim!.exchanges.slice(1).every((exchange) => exchange.promptTokens === 0)).toBe(true);
  });

  it("takes cache controls only on GPT-5.6 and later, one lifetime at most, four breakpoint writes at most", async () => {
    await start();
    expect((await post({ model: "gpt-5.5", input: [user("x", true)] })).error).toContain("not supported with model 'gpt-5.5'");
    expect((await post({ model: "gpt-5.5", input: "x", prompt_cache_options: { mode: "implicit" } })).status).toBe(400);
    expect((await post({ model: "gpt-5.6", input: "x", prompt_cache_retention: "24h", prompt_cache_options: { ttl: "30m" } })).error).toContain("cannot be combined");
    const four = [user("a", true), user("b", true), user("c", true), user("d", true)];
    expect((await post({ model: "gpt-5.6", input: four })).error).toContain("at most 4");
    expect((await post({ model: "gpt-5.6", input: four, prompt_cache_options: { mode: "explicit" } })).status).toBe(200);
  });

  it("caches prefixes of 1024 tokens and more in 128-token steps, and reads a marked prefix at its exact end", async () => {
    await start();
    const short = await post({ model: "gpt-5.5", input: [user("short")] });
    expect(outputOf(short.events).usage.input_tokens).toBeLessThan(1024);
    expect(outputOf((await post({ model: "gpt-5.5", input: [user("short"), user("more")] })).events).usage.input_tokens_details.cached_tokens).toBe(0);

    await post({ model: "gpt-5.5", input: [developer(), user("one")] });
    const implicit = outputOf((await post({ model: "gpt-5.5", input: [developer(), user("two")] })).events).usage.input_tokens_details.cached_tokens;
    expect(implicit).toBeGreaterThanOrEqual(1024);
    expect((implicit - 1024) % 128).toBe(0);

    await post({ model: "gpt-5.6", input: [developer(true), user("one")], prompt_cache_options: { mode: "explicit" } });
    const marked = sim!.exchanges.at(-1)!;
    const exact = outputOf((await post({ model: "gpt-5.6", input: [developer(), user("two")], prompt_cache_options: { mode: "explicit" } })).events).usage.input_tokens_details.cached_tokens;
    expect(exact).toBeGreaterThan(implicit - 128);
    expect(exact).toBeLessThan(marked.promptTokens);
    // Without the implicit breakpoint, nothing unmarked is cached.
    await post({ model: "gpt-5.6", input: [user(long), user("one")], prompt_cache_options: { mode: "explicit" } });
    expect(outputOf((await post({ model: "gpt-5.6", input: [user(long), user("two")], prompt_cache_options: { mode: "explicit" } })).events).usage.input_tokens_details.cached_tokens).toBe(0);
  });

  it("reports on GPT-5.6 and later the writes it bills: what a request stores past what it read", async () => {
    await start();
    const usage = async (body: object) => outputOf((await post(body)).events).usage;
    // Before GPT-5.6 writes are free and not reported.
    expect((await usage({ model: "gpt-5.5", input: [developer(), user("one")] })).input_tokens_details).toEqual({ cached_tokens: 0 });
    // A prompt under 1,024 tokens stores nothing, so writes nothing.
    expect((await usage({ model: "gpt-5.6", input: [user("short")] })).input_tokens_details).toEqual({ cached_tokens: 0, cache_write_tokens: 0 });
    // The implicit breakpoint stores the longest 128-step prefix; the next request reads it and writes only what it adds past it.
    const first = await usage({ model: "gpt-5.6", input: [developer(), user("one")] });
    expect(first.input_tokens_details.cache_write_tokens).toBe(1024 + Math.floor((first.input_tokens - 1024) / 128) * 128);
    const second = await usage({ model: "gpt-5.6", input: [developer(), user("two, and a longer question than before so the prompt grows past a unit ".repeat(20))] });
    const stored = 1024 + Math.floor((second.input_tokens - 1024) / 128) * 128;
    expect(second.input_tokens_details.cache_write_tokens).toBe(stored - second.input_tokens_details.cached_tokens);
    expect(second.input_tokens_details.cache_write_tokens).toBeGreaterThan(0);
    // Explicit mode: only a marked prefix of 1,024 tokens or more is stored, and read back whole writes nothing.
    expect((await usage({ model: "gpt-5.6", input: [user("short", true), user("more")], prompt_cache_options: { mode: "explicit" } })).input_tokens_details.cache_write_tokens).toBe(0);
    const marked = await usage({ model: "gpt-5.6-luna", input: [developer(true), user("one")], prompt_cache_options: { mode: "explicit" } });
    expect(marked.input_tokens_details.cache_write_tokens).toBeGreaterThan(1024);
    expect(marked.input_tokens_details.cache_write_tokens).toBeLessThan(marked.input_tokens);
    const again = await usage({ model: "gpt-5.6-luna", input: [developer(true), user("two")], prompt_cache_options: { mode: "explicit" } });
    expect(again.input_tokens_details).toEqual({ cached_tokens: marked.input_tokens_details.cache_write_tokens, cache_write_tokens: 0 });
    expect(sim!.exchanges.at(-2)!.cacheWriteTokens).toBe(marked.input_tokens_details.cache_write_tokens);
  });

  it("reads a breakpoint marker as no text: moving it changes no prompt token", async () => {
    await start();
    await post({ model: "gpt-5.6", input: [developer(true), user("q")] });
    await post({ model: "gpt-5.6", input: [developer(), user("q", true)] });
    expect(sim!.exchanges[0]!.promptTokens).toBe(sim!.exchanges[1]!.promptTokens);
  });
});

describe("the Responses dialect's prompt-cache diagnostics", () => {
  it("compares a request with the answer it names, setting by setting in OpenAI's order, then the input", async () => {
    await start(12);
    const base = { model: "gpt-5.6", prompt_cache_key: "k", reasoning: { effort: "low" }, tools: [{ type: "function", name: "t" }], input: [developer(), user("one")] };
    const answer = async (body: object) => outputOf((await post(body)).events) as unknown as { id: string; prompt_cache_diagnostics?: unknown };
    const diagnosis = async (body: object) => (await answer(body)).prompt_cache_diagnostics;
    const first = await answer(base);
    expect(first.prompt_cache_diagnostics).toBeUndefined();
    const compare = (_first: 1 | 99) => ({ prompt_cache_options: { comparison_response_id: _first === 1 ? first.id : "resp_sim_unknown" } });
    expect(await diagnosis({ ...base, input: [...base.input, user("two")], ...compare(1) })).toEqual({ type: "cache_hit" });
    const whole = sim!.exchanges[0]!.promptTokens;
    expect(await diagnosis({ ...base, model: "gpt-5.6-terra", ...compare(1) })).toEqual({ type: "cache_miss", reason: "model_changed", cache_missed_tokens: whole, comparison_reusable_tokens: 0 });
    expect(await diagnosis({ ...base, prompt_cache_key: "other", ...compare(1) })).toMatchObject({ reason: "prompt_cache_key_changed" });
    expect(await diagnosis({ ...base, tools: [], ...compare(1) })).toMatchObject({ reason: "tools_changed" });
    expect(await diagnosis({ ...base, reasoning: { effort: "high" }, ...compare(1) })).toMatchObject({ reason: "reasoning_effort_changed" });
    const edited = await diagnosis({ ...base, input: [developer(), user("ONE")], ...compare(1) });
    expect(edited).toMatchObject({ type: "cache_miss", reason: "input_changed" });
    const { cache_missed_tokens: missed, comparison_reusable_tokens: reusable } = edited as { cache_missed_tokens: number; comparison_reusable_tokens: number };
    expect(missed + reusable).toBe(whole);
    expect(reusable).toBeGreaterThan(1024);
    expect(await diagnosis({ ...base, ...compare(99) })).toEqual({ type: "comparison_response_not_found" });
  });
});

describe("the Responses prompt as the simulator reads it", () => {
  it("renders the tools, the instructions, then each item, reasoning decrypted, marking the items that end at a breakpoint", () => {
    const tools = [{ type: "function", name: "t" }];
    const marked = { type: "input_text", text: "Look.", prompt_cache_breakpoint: {} };
    expect(
      renderResponsesPrompt({
        tools,
        instructions: "Be brief.",
        input: [
          { role: "user", content: [null, "loose", { type: "input_text", text: "Hi " }, { type: "input_image", image_url: "data:image/png;base64,AA" }, marked] },
          null,
          { type: "reasoning", id: "rs_1", encrypted_content: encryptReasoning("rs_1", "Think first.") },
          { type: "reasoning", id: "rs_2", encrypted_content: "forged.mac" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Calling." }, { type: "refusal", refusal: "No." }] },
          { type: "function_call", call_id: "c1", name: "t", arguments: '{"a":1}' },
          { type: "function_call_output", call_id: "c1", output: [{ type: "input_text", text: "out", prompt_cache_breakpoint: {} }] },
          { type: "function_call_output", call_id: "c2", output: "plain" },
          { type: "item_reference", id: "x" },
          "not an item",
        ],
      }),
    ).toEqual([
      { text: `<|tools|>${JSON.stringify(tools)}<|end|>`, breakpoint: false },
      { text: "<|developer|>Be brief.<|end|>", breakpoint: false },
      { text: "<|user|>Hi <|image|>24Look.<|end|>", breakpoint: true },
      { text: "<|think|>Think first.<|end|>", breakpoint: false },
      { text: "<|think|><|end|>", breakpoint: false },
      { text: "<|assistant|>Calling.No.<|end|>", breakpoint: false },
      { text: '<|call|>[c1]t({"a":1})<|end|>', breakpoint: false },
      { text: "<|result|>[c1]out<|end|>", breakpoint: true },
      { text: "<|result|>[c2]plain<|end|>", breakpoint: false },
      { text: '{"type":"item_reference","id":"x"}<|end|>', breakpoint: false },
    ]);
  });

  it("reads a string input as one user message, and renders no tools segment for an empty list", () => {
    expect(renderResponsesPrompt({ tools: [], input: "Hello." })).toEqual([{ text: "<|user|>Hello.<|end|>", breakpoint: false }]);
    expect(renderResponsesPrompt({ input: 3 })).toEqual([]);
  });
});

describe("the simulator's reasoning envelope", () => {
  it("decrypts only what it encrypted for that item", () => {
    const content = encryptReasoning("rs_a", "secret plan");
    expect(decryptReasoning("rs_a", content)).toBe("secret plan");
    expect(decryptReasoning("rs_b", content)).toBeUndefined();
    expect(decryptReasoning("rs_a", "no-dot")).toBeUndefined();
    expect(requiredReasoning("fc_abc123_0_rs")).toBe("rs_abc123");
    expect(requiredReasoning("fc_abc123_0")).toBeUndefined();
  });

  it("answers a content it checked before alike, and never for another item whose id and content join to the same text", () => {
    const content = encryptReasoning("rs_a", "another plan");
    expect(decryptReasoning("rs_a", content)).toBe("another plan");
    expect(decryptReasoning("rs_other", encryptReasoning("rs_other", "a third plan"))).toBe("a third plan");
    macs.made = 0;
    expect(decryptReasoning("rs_a", content)).toBe("another plan");
    expect(macs.made).toBe(0);
    expect(decryptReasoning("rs_", `a${content}`)).toBeUndefined();
    expect(decryptReasoning("rs_a", `${content}x`)).toBeUndefined();
    expect(decryptReasoning("rs_a", `${content}x`)).toBeUndefined();
  });

  it("keeps what it verified up to a bound: a huge content makes it verify the others again", () => {
    const small = encryptReasoning("rs_small", "a short plan");
    expect(decryptReasoning("rs_small", small)).toBe("a short plan");
    const huge = "x".repeat(13_000_000);
    expect(decryptReasoning("rs_huge", encryptReasoning("rs_huge", huge))).toBe(huge);
    macs.made = 0;
    expect(decryptReasoning("rs_small", small)).toBe("a short plan");
    expect(macs.made).toBe(1);
    macs.made = 0;
    expect(decryptReasoning("rs_small", small)).toBe("a short plan");
    expect(macs.made).toBe(0);
    // Keeping the short one again went past the bound: the huge one was forgotten.
    expect(decryptReasoning("rs_huge", encryptReasoning("rs_huge", huge))).toBe(huge);
    macs.made = 0;
    expect(decryptReasoning("rs_huge", encryptReasoning("rs_huge", huge))).toBe(huge);
    expect(macs.made).toBe(1);
  });
});
