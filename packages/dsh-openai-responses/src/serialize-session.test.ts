import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { makePng } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeRequest } from "./serialize.js";

const text = fc.oneof(fc.constant(""), fc.string({ maxLength: 6 }));
const message: fc.Arbitrary<Message | "image"> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: fc.tuple(fc.record({ type: fc.constant("text" as const), text })), source: fc.constant("user") }),
  fc.record({ role: fc.constant("assistant" as const), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), source: fc.constant("model") }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.tuple(fc.record({ type: fc.constant("tool-call" as const), callId: fc.constant("c"), name: fc.constant("t"), arguments: fc.constant("{}") })),
    source: fc.constant("model"),
  }),
  fc.record({ role: fc.constant("tool" as const), callId: fc.constant("c"), toolName: fc.constant("t"), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), isError: fc.boolean(), source: fc.constant("tool") }),
  fc.constant("image" as const),
);

/** A step of a session: new messages after the last request's, or a compaction that keeps some of them (after the system prompt) first. */
const step = fc.record({ from: fc.nat(4), count: fc.nat(6), compact: fc.boolean(), added: fc.array(message, { maxLength: 3 }) });

describe("serializeRequest over one session's requests", () => {
  it("writes what the same request frozen alone writes, at every request, as breakpoints move and images are read afresh", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), fc.constantFrom("rolling-v1", undefined), async (steps, cachePolicy) => {
        const freezer = new RequestFreezer();
        const config = { provider: "openai-responses", model: "gpt-5.6", ...(cachePolicy === undefined ? {} : { cachePolicy }) };
        let history: Message[] = [{ role: "system", content: "s", source: "system-prompt" }];
        for (const { from, count, compact, added } of steps) {
          const kept = compact ? [history[0]!, ...history.slice(1 + from, 1 + from + count)] : history;
          history = [...kept, ...added.map((m) => (m === "image" ? imageMessage() : structuredClone(m)))];
          const request = freezer.freeze({ config, messages: history });
          const alone = freezeRequest(structuredClone({ config, messages: history })) as FrozenGenerateOptions;
          const expected = await serializeRequest(alone, { breakpoints: true, attachments });
          expect(await serializeRequest(request, { breakpoints: true, attachments })).toBe(expected);
          expect(await serializeRequest(request, { breakpoints: true, attachments })).toBe(expected);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("serializes each unmarked message once per session, however many requests repeat it", async () => {
    let reads = 0;
    const counted = (text: string): Message => ({ role: "user", content: [{ type: "text", get text() { reads++; return text; } }], source: "user" });
    const freezer = new RequestFreezer();
    const config = { provider: "openai-responses", model: "gpt-5.6" };
    const first = freezer.freeze({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, counted("a"), counted("b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, counted("c")] });
    const bodies = new Map([
      [first, await serializeRequest(first)],
      [second, await serializeRequest(second)],
    ]);
    for (const request of [second, first, second]) {
      const before = reads;
      expect(await serializeRequest(request)).toBe(bodies.get(request));
      expect(reads).toBe(before);
    }
    expect(bodies.get(second)).toContain('"text":"c"');
  });

  it("serializes a request of frozen messages that no freezer froze afresh each time", async () => {
    const messages = [Object.freeze({ role: "user" as const, content: Object.freeze([Object.freeze({ type: "text" as const, text: "hi" })]), source: "user" })];
    const request = { config: { provider: "openai-responses", model: "gpt-5.6" }, messages } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(request)).toBe(await serializeRequest(request));
    expect(await serializeRequest(request)).toContain('"input":[{"type":"message","role":"user"');
  });
});
