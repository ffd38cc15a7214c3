import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { frozenUserMessage, makePng, nextHistory, readCounter, sessionSteps } from "dsh-testkit";
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

describe("serializeRequest over one session's requests", () => {
  it("writes what the same request frozen alone writes, at every request, as breakpoints move and images are read afresh", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" });
    await fc.assert(
      fc.asyncProperty(sessionSteps(message), fc.constantFrom("rolling-v1", undefined), async (steps, cachePolicy) => {
        const freezer = new RequestFreezer();
        const config = { provider: "openai-responses", model: "gpt-5.6", ...(cachePolicy === undefined ? {} : { cachePolicy }) };
        let history: Message[] = [{ role: "system", content: "s", source: "system-prompt" }];
        for (const step of steps) {
          history = nextHistory(history, step, imageMessage);
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
    const counter = readCounter();
    const freezer = new RequestFreezer();
    const config = { provider: "openai-responses", model: "gpt-5.6" };
    const first = freezer.freeze({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, counter.message("a"), counter.message("b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, counter.message("c")] });
    const bodies = new Map([
      [first, await serializeRequest(first)],
      [second, await serializeRequest(second)],
    ]);
    for (const request of [second, first, second]) {
      const before = counter.reads;
      expect(await serializeRequest(request)).toBe(bodies.get(request));
      expect(counter.reads).toBe(before);
    }
    expect(bodies.get(second)).toContain('"text":"c"');
  });

  it("serializes a request of frozen messages that no freezer froze afresh each time", async () => {
    const messages = [frozenUserMessage("hi")];
    const request = { config: { provider: "openai-responses", model: "gpt-5.6" }, messages } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(request)).toBe(await serializeRequest(request));
    expect(await serializeRequest(request)).toContain('"input":[{"type":"message","role":"user"');
  });
});
