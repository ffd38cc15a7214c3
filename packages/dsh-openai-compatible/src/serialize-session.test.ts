import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { RequestFreezer, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { frozenUserMessage, makePng, nextHistory, readCounter, sessionSteps } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serializeRequest } from "./serialize.js";
import { serializeRequestPlain } from "./test-support/plain-serialize.js";

const text = fc.string({ maxLength: 10 });
const textMessage: fc.Arbitrary<Message> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { minLength: 1, maxLength: 2 }), source: fc.constant("user") }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.array(fc.oneof(fc.record({ type: fc.constant("text" as const), text }), fc.record({ type: fc.constant("tool-call" as const), callId: fc.constant("c"), name: fc.constant("a"), arguments: fc.constant("{}") })), {
      maxLength: 2,
    }),
    source: fc.constant("model"),
  }),
  fc.record({ role: fc.constant("tool" as const), callId: fc.constant("c"), toolName: fc.constant("a"), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), isError: fc.boolean(), source: fc.constant("tool") }),
);

describe("serializeRequest over one session's requests", () => {
  it("writes the bytes of the straightforward serializer at every request, through growth, compaction and images", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" });
    await fc.assert(
      fc.asyncProperty(sessionSteps(fc.oneof({ weight: 4, arbitrary: textMessage }, { weight: 1, arbitrary: fc.constant("image" as const) })), async (steps) => {
        const freezer = new RequestFreezer();
        const config = { provider: "p", model: "m" };
        let history: Message[] = [{ role: "system", content: "s", source: "system-prompt" }];
        for (const step of steps) {
          history = nextHistory(history, step, imageMessage);
          const request = freezer.freeze({ config, messages: history });
          for (const dialect of ["deepseek", "openai"] as const) {
            expect(await serializeRequest(request, { dialect, attachments })).toBe(await serializeRequestPlain(request, { dialect, attachments }));
          }
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("serializes each message once per session and dialect, however many requests repeat it", async () => {
    const counter = readCounter();
    const freezer = new RequestFreezer();
    const config = { provider: "p", model: "m" };
    const first = freezer.freeze({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, counter.message("a"), counter.message("b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, counter.message("c")] });
    await serializeRequest(first, { dialect: "openai" });
    await serializeRequest(second, { dialect: "openai" });
    for (const request of [second, first, second]) {
      const before = counter.reads;
      const bytes = await serializeRequest(request, { dialect: "openai" });
      expect(counter.reads).toBe(before);
      expect(bytes).toBe(await serializeRequestPlain(request, { dialect: "openai" }));
    }
    expect(counter.reads).toBeGreaterThan(0);
  });

  it("gives serializations of one session in flight at once their own bytes, while each reads an image", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(3, 2));
    const branches = fc.array(fc.array(textMessage, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 });
    await fc.assert(
      fc.asyncProperty(fc.array(textMessage, { maxLength: 4 }), branches, fc.array(textMessage, { minLength: 1, maxLength: 4 }), async (history, [first, ...others], more) => {
        const freezer = new RequestFreezer();
        const config = { provider: "p", model: "m" };
        const shared: Message[] = [{ role: "system", content: "s", source: "system-prompt" }, { role: "user", content: [{ type: "image", image }], source: "user" }, ...history];
        const warmed = freezer.freeze({ config, messages: [...shared, ...structuredClone(first!)] });
        await serializeRequest(warmed, { dialect: "deepseek", attachments });
        // One request goes on from the warmed one, the others diverge after the shared part; the image
        // they hold is read afresh by each, so they interleave, and one that finishes first leaves the
        // others fewer messages joined than they started from.
        const requests = [
          freezer.freeze({ config, messages: [...warmed.messages, ...structuredClone(more)] }),
          ...others.map((tail) => freezer.freeze({ config, messages: [...shared, ...structuredClone(tail)] })),
        ];
        const expected = await Promise.all(requests.map((request) => serializeRequestPlain(request, { dialect: "deepseek", attachments })));
        expect(await Promise.all(requests.map((request) => serializeRequest(request, { dialect: "deepseek", attachments })))).toEqual(expected);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });

  it("serializes a request of frozen messages that no freezer froze afresh each time", async () => {
    const messages = [frozenUserMessage("hi")];
    const request = { config: { provider: "p", model: "m" }, messages } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(request, { dialect: "openai" })).toBe(await serializeRequestPlain(request, { dialect: "openai" }));
    expect(await serializeRequest(request, { dialect: "openai" })).toBe(await serializeRequestPlain(request, { dialect: "openai" }));
  });
});
