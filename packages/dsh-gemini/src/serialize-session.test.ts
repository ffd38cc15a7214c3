import { MemoryAttachmentStore, putImage, type AttachmentStore } from "dsh-attachments";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { makePng, nextHistory, bodiesInFlight, scheduledReads, sessionSteps } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { GeminiContents } from "./parts.js";
import { serializeRequest } from "./serialize.js";

const config = { provider: "gemini", model: "gemini-3.8-flash" } as const;
const tools = [{ name: "t", description: "a tool", parameters: { type: "object" } }];

/** The `contents` of a request as the one-message-at-a-time builder writes them, every message turned into parts afresh. */
async function plainContents(request: FrozenGenerateOptions, attachments: AttachmentStore): Promise<string> {
  const { contents } = await GeminiContents.of(request.messages, attachments);
  return `[${contents.map((content) => `{"role":"${content.role}","parts":[${content.parts.join(",")}]}`).join(",")}]`;
}

const text = fc.oneof(fc.constant("a"), fc.string({ minLength: 1, maxLength: 6 }));
const signature = fc.constant("sig");
const message: fc.Arbitrary<Message | "image"> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: fc.tuple(fc.record({ type: fc.constant("text" as const), text })), source: fc.constant("user") }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("text" as const), text: fc.oneof(fc.constant(""), text), thoughtSignature: signature }, { requiredKeys: ["type", "text"] }),
        fc.record({ type: fc.constant("reasoning" as const), text, thoughtSignature: signature }, { requiredKeys: ["type", "text"] }),
        fc.record({ type: fc.constant("tool-call" as const), callId: fc.constantFrom("c", "d"), itemId: fc.constantFrom("g1", "g2"), name: fc.constant("t"), arguments: fc.constantFrom("{}", '{"a": 1}') }, { requiredKeys: ["type", "callId", "name", "arguments"] }),
      ),
      { maxLength: 3 },
    ),
    source: fc.constant("model"),
  }),
  fc.record({ role: fc.constant("tool" as const), callId: fc.constantFrom("c", "d"), toolName: fc.constant("t"), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), isError: fc.boolean(), source: fc.constant("tool") }),
  fc.constant("image" as const),
);

/** A session's first message: a system prompt, an empty one, or none (a user message). */
const firstMessage = fc.constantFrom<Message>(
  { role: "system", content: "s", source: "system-prompt" },
  { role: "system", content: "", source: "system-prompt" },
  { role: "user", content: [{ type: "text", text: "first" }], source: "user" },
);

describe("serializeRequest over one session's requests", () => {
  it("writes what the same request frozen alone writes, at every request, through compaction, changing tools and images read afresh", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" });
    await fc.assert(
      fc.asyncProperty(sessionSteps(message, 4), fc.array(fc.boolean()), firstMessage, async (steps, withTools, first) => {
        const freezer = new RequestFreezer();
        let history: Message[] = [first];
        for (const [index, step] of steps.entries()) {
          history = nextHistory(history, step, imageMessage);
          const options = { config, messages: history, ...(withTools[index] === true ? { tools } : {}) };
          const request = freezer.freeze(options);
          const alone = serializeRequest(freezeRequest(structuredClone(options)), { attachments });
          const contents = await plainContents(request, attachments);
          if (contents === "[]") {
            await expect(alone).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
            await expect(serializeRequest(request, { attachments })).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
            continue;
          }
          const expected = await alone;
          expect(expected.endsWith(`"contents":${contents}}`)).toBe(true);
          expect(await serializeRequest(request, { attachments })).toBe(expected);
          expect(await serializeRequest(request, { attachments })).toBe(expected);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("names no id in a result that a compaction kept without its call, as the same request alone does", async () => {
    const freezer = new RequestFreezer();
    const go: Message = { role: "user", content: [{ type: "text", text: "go" }], source: "user" };
    const result: Message = { role: "tool", callId: "c", toolName: "t", content: [{ type: "text", text: "r" }], isError: false, source: "tool" };
    const first = freezer.freeze({ config, messages: [go, { role: "assistant", content: [{ type: "tool-call", callId: "c", itemId: "g1", name: "t", arguments: "{}" }], source: "model" }, result] });
    expect(await serializeRequest(first)).toContain('"id":"g1","name":"t","response"');
    // The summary that replaced the call is an answer too, so the result opens the same way.
    const summary: Message = { role: "assistant", content: [{ type: "text", text: "I called t." }], source: "compaction" };
    const compacted = freezer.freeze({ config, messages: [go, summary, result] });
    const body = await serializeRequest(compacted);
    expect(body).toBe(await serializeRequest(freezeRequest(structuredClone({ config, messages: compacted.messages }))));
    expect(body).toContain('{"role":"user","parts":[{"functionResponse":{"name":"t","response"');
  });

  it("gives a kept result the id its call went out with in each request, when another call of its id took the call's place or none did", async () => {
    const freezer = new RequestFreezer();
    const go: Message = { role: "user", content: [{ type: "text", text: "go" }], source: "user" };
    const result: Message = { role: "tool", callId: "c", toolName: "t", content: [{ type: "text", text: "r" }], isError: false, source: "tool" };
    const answer = (itemId: string): Message => ({ role: "assistant", content: [{ type: "tool-call", callId: "c", itemId, name: "t", arguments: "{}" }], source: "model" });
    const summary: Message = { role: "assistant", content: [{ type: "text", text: "I called t." }], source: "compaction" };
    // An id is any string the provider gave, even one that reads like a missing value.
    for (const [before, id] of [[answer("g1"), "g1"], [answer("g2"), "g2"], [answer("undefined"), "undefined"], [summary, undefined]] as const) {
      const request = freezer.freeze({ config, messages: [go, before, result] });
      const body = await serializeRequest(request);
      expect(body).toBe(await serializeRequest(freezeRequest(structuredClone({ config, messages: request.messages }))));
      expect(body).toContain(id === undefined ? '"parts":[{"functionResponse":{"name":"t","response"' : `"parts":[{"functionResponse":{"id":"${id}","name":"t","response"`);
    }
  });

  it("gives each of an answer's parallel calls' results the id of its own call", async () => {
    const request = new RequestFreezer().freeze({
      config,
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }], source: "user" },
        { role: "assistant", content: [{ type: "tool-call", callId: "c", itemId: "g1", name: "t", arguments: "{}" }, { type: "tool-call", callId: "d", itemId: "g2", name: "t", arguments: "{}" }], source: "model" },
        { role: "tool", callId: "c", toolName: "t", content: [{ type: "text", text: "r1" }], isError: false, source: "tool" },
        { role: "tool", callId: "d", toolName: "t", content: [{ type: "text", text: "r2" }], isError: false, source: "tool" },
      ],
    });
    const body = await serializeRequest(request);
    expect(body).toContain('{"functionResponse":{"id":"g1","name":"t","response":{"output":"r1"}}},{"functionResponse":{"id":"g2","name":"t","response":{"output":"r2"}}}');
  });

  it("writes the bytes of only the messages a request adds to the session's last request, however long the history", async () => {
    const answer = (i: number): Message => ({ role: "assistant", content: [{ type: "tool-call", callId: `c${i}`, name: "t", arguments: "{}" }], source: "model" });
    const result = (i: number): Message => ({ role: "tool", callId: `c${i}`, toolName: "t", content: [{ type: "text", text: `r${i}` }], isError: false, source: "tool" });
    const freezer = new RequestFreezer();
    const messages: Message[] = [{ role: "system", content: "s", source: "system-prompt" }, { role: "user", content: [{ type: "text", text: "go" }], source: "user" }];
    for (let i = 0; i < 50; i++) messages.push(answer(i), result(i));
    await serializeRequest(freezer.freeze({ config, messages }));
    const next = freezer.freeze({ config, messages: [...messages, answer(50), result(50)] });
    const written = vi.spyOn(Buffer, "from");
    const body = await serializeRequest(next);
    // The head, and each new message's bytes.
    expect(written.mock.calls.length).toBe(3);
    written.mockRestore();
    expect(body).toBe(await serializeRequest(freezeRequest(structuredClone({ config, messages: next.messages }))));
  });

  it("gives serializations of one session in flight at once their own bodies, in any order of their image reads", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "image", image }], source: "user" });
    const branch = fc.array(message, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), branch, fc.array(branch, { minLength: 1, maxLength: 3 }), async (s, shared, branches) => {
        const freezer = new RequestFreezer();
        const attachments = scheduledReads(store, s);
        const made = (list: readonly (Message | "image")[]) => list.map((m) => (m === "image" ? imageMessage() : structuredClone(m)));
        const { inFlight, alone } = await bodiesInFlight(s, [{ role: "user", content: [{ type: "text", text: "go" }], source: "user" } as Message, ...made(shared)], branches.map(made), {
          session: (messages) => freezer.freeze({ config, messages }),
          alone: (messages) => freezeRequest(structuredClone({ config, messages })),
          serialize: (request, scheduled) => serializeRequest(request, { attachments: scheduled ? attachments : store }),
        });
        expect(inFlight).toEqual(alone);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });
});
