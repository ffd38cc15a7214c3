import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";
import { frozenUserMessage, makePng, nextHistory, readCounter, bodiesInFlight, scheduledReads, sessionSteps } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { layoutRequest } from "./blocks.js";
import { placeBreakpoints, serializeRequest } from "./serialize.js";
import { writeWireJson, type WireValue } from "./wire-json.js";

/** The wire `messages` of a request as the straightforward way writes them: every block laid out and written afresh, as one value. */
async function plainMessages(request: FrozenGenerateOptions, attachments: MemoryAttachmentStore): Promise<string> {
  const layout = await layoutRequest(request.messages, request.tools, attachments);
  const marks = new Set(placeBreakpoints(request, layout));
  const messages = layout.roles.map((role) => ({ role, content: [] as WireValue[] }));
  layout.blocks.forEach((block, i) => {
    if (block.section !== "messages") return;
    messages[block.message]!.content.push(marks.has(i) ? { ...block.value, cache_control: { type: "ephemeral", ttl: request.config.cacheTtl ?? "5m" } } : block.value);
  });
  return writeWireJson(messages);
}

const text = fc.oneof(fc.constant(""), fc.constant(" "), fc.string({ maxLength: 6 }));
const message: fc.Arbitrary<Message | "image"> = fc.oneof(
  fc.record({ role: fc.constant("user" as const), content: fc.tuple(fc.record({ type: fc.constant("text" as const), text })), source: fc.constantFrom("user", "compaction") }),
  fc.record({
    role: fc.constant("assistant" as const),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("text" as const), text }),
        fc.record({ type: fc.constant("reasoning" as const), text, signature: fc.constant("sig") }),
        fc.record({ type: fc.constant("tool-call" as const), callId: fc.constant("c"), name: fc.constant("t"), arguments: fc.constantFrom("{}", '{"a": 1}', "oops") }),
      ),
      { maxLength: 3 },
    ),
    source: fc.constant("model"),
  }),
  fc.record({ role: fc.constant("tool" as const), callId: fc.constant("c"), toolName: fc.constant("t"), content: fc.array(fc.record({ type: fc.constant("text" as const), text }), { maxLength: 2 }), isError: fc.boolean(), source: fc.constant("tool") }),
  fc.constant("image" as const),
);

const tools = [{ name: "t", description: "a tool", parameters: { type: "object" } }];
const otherTools = [...tools, { name: "u", description: "another tool", parameters: { type: "object" } }];
/** A session's first message: a system prompt, one with no sendable text, or none (a user message). */
const firstMessage: fc.Arbitrary<Message> = fc.constantFrom<Message>(
  { role: "system", content: "s", source: "system-prompt" },
  { role: "system", content: " ", source: "system-prompt" },
  { role: "user", content: [{ type: "text", text: "first" }], source: "user" },
);

describe("serializeRequest over one session's requests", () => {
  it("writes what the same request frozen alone writes, at every request, as breakpoints move, tools change and images are read afresh", async () => {
    const attachments = new MemoryAttachmentStore();
    const image = await putImage(attachments, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", image }], source: "user" });
    await fc.assert(
      fc.asyncProperty(sessionSteps(message, 4), fc.constantFrom("rolling-v1", "system-and-last-user-v1", undefined), fc.array(fc.constantFrom(undefined, tools, otherTools)), firstMessage, async (steps, cachePolicy, toolLists, first) => {
        const freezer = new RequestFreezer();
        const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, ...(cachePolicy === undefined ? {} : { cachePolicy }) };
        let history: Message[] = [first];
        for (const [index, step] of steps.entries()) {
          history = nextHistory(history, step, imageMessage);
          const stepTools = toolLists[index];
          const options = { config, messages: history, ...(stepTools === undefined ? {} : { tools: stepTools }) };
          const request = freezer.freeze(options);
          const expected = await serializeRequest(freezeRequest(structuredClone(options)) as FrozenGenerateOptions, { attachments });
          expect(expected).toContain(`"messages":${await plainMessages(request, attachments)},`);
          expect(await serializeRequest(request, { attachments })).toBe(expected);
          expect(await serializeRequest(request, { attachments })).toBe(expected);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 200) },
    );
  });

  it("lays out each message once per session, however many requests repeat it", async () => {
    const counter = readCounter();
    const freezer = new RequestFreezer();
    const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, cachePolicy: "rolling-v1" };
    const answer: Message = { role: "assistant", content: [{ type: "text", text: "ok" }], source: "model" };
    const first = freezer.freeze({ config, messages: [{ role: "system", content: "s", source: "system-prompt" }, counter.message("a"), answer, counter.message("b")] });
    const second = freezer.freeze({ config, messages: [...first.messages, { role: "assistant", content: [{ type: "text", text: "fine" }], source: "model" }, counter.message("c")] });
    const bodies = new Map([
      [first, await serializeRequest(first)],
      [second, await serializeRequest(second)],
    ]);
    for (const request of [second, first, second]) {
      const before = counter.reads;
      expect(await serializeRequest(request)).toBe(bodies.get(request));
      expect(counter.reads).toBe(before);
    }
    expect(bodies.get(second)).toContain('"text":"c","cache_control"');
  });

  it("lays out only the messages a request adds to the session's last request, however long the history", async () => {
    let reads = 0;
    /** A tool result whose source counts its reads: laying a message out reads it, reusing its layout does not. */
    const result = (i: number): Message => ({
      role: "tool",
      callId: `c${i}`,
      toolName: "t",
      content: [{ type: "text", text: `r${i}` }],
      isError: false,
      get source() {
        reads++;
        return "tool";
      },
    });
    const answer = (i: number): Message => ({ role: "assistant", content: [{ type: "tool-call", callId: `c${i}`, name: "t", arguments: "{}" }], source: "model" });
    const freezer = new RequestFreezer();
    const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, cachePolicy: "rolling-v1" };
    let messages: Message[] = [{ role: "system", content: "s", source: "system-prompt" }, { role: "user", content: [{ type: "text", text: "go" }], source: "user" }];
    for (let i = 0; i < 50; i++) messages.push(answer(i), result(i));
    const first = freezer.freeze({ config, messages });
    await serializeRequest(first);
    reads = 0;
    const second = freezer.freeze({ config, messages: [...messages, answer(50), result(50)] });
    const body = await serializeRequest(second);
    // Validating and laying out the new result reads it; the fifty before it are not read again.
    const afresh = reads;
    expect(afresh).toBeLessThanOrEqual(3);
    expect(body).toBe(await serializeRequest(freezeRequest(structuredClone({ config, messages: second.messages }))));
    reads = 0;
    const third = freezer.freeze({ config, messages: [...second.messages, answer(51), result(51)] });
    // And writes the bytes of only the new messages and the marked ones (besides the head and the tail).
    const written = vi.spyOn(Buffer, "from");
    await serializeRequest(third);
    expect(written.mock.calls.length).toBeLessThanOrEqual(8);
    written.mockRestore();
    expect(reads).toBe(afresh);
  });

  it("gives serializations of one session in flight at once their own bodies, in any order of their image reads", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 2));
    const imageMessage = (): Message => ({ role: "user", content: [{ type: "image", image }], source: "user" });
    const config = { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, cachePolicy: "rolling-v1" };
    const branch = fc.array(message, { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), branch, fc.array(branch, { minLength: 1, maxLength: 3 }), async (s, shared, branches) => {
        const freezer = new RequestFreezer();
        const attachments = scheduledReads(store, s);
        const made = (list: readonly (Message | "image")[]) => list.map((m) => (m === "image" ? imageMessage() : structuredClone(m)));
        const { inFlight, alone } = await bodiesInFlight(s, [{ role: "system", content: "s", source: "system-prompt" } as Message, ...made(shared)], branches.map(made), {
          session: (messages) => freezer.freeze({ config, messages }),
          alone: (messages) => freezeRequest(structuredClone({ config, messages })),
          serialize: (request, scheduled) => serializeRequest(request, { attachments: scheduled ? attachments : store }),
        });
        expect(inFlight).toEqual(alone);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });

  it("lays out a request of frozen messages that no freezer froze afresh each time", async () => {
    const messages = [frozenUserMessage("hi")];
    const request = { config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64 }, messages } as unknown as FrozenGenerateOptions;
    expect(await serializeRequest(request)).toBe(await serializeRequest(request));
    expect(await serializeRequest(request)).toContain('"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]');
  });

  it("marks the last tool when there is no system prompt", async () => {
    const tools = [
      { name: "a", description: "first", parameters: { type: "object" } },
      { name: "b", description: "second", parameters: { type: "object" } },
    ];
    const request = freezeRequest({ config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 64, cachePolicy: "rolling-v1" }, messages: [{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }], tools });
    const body = JSON.parse(await serializeRequest(request)) as { tools: { cache_control?: unknown }[] };
    expect(body.tools.map((tool) => tool.cache_control)).toEqual([undefined, { type: "ephemeral", ttl: "5m" }]);
  });
});
