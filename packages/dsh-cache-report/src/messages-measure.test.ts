import { serializeRequest } from "dsh-anthropic";
import { MemoryAttachmentStore } from "dsh-attachments";
import { buildEpochHeader, type RequestHeaderSnapshot } from "dsh-header";
import { freezeRequest, type Message } from "dsh-llm";
import { renderMessagesPrompt, type MessagesBody } from "dsh-simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extendRendered, renderedWhole } from "./messages-measure.js";

const attachments = new MemoryAttachmentStore();
const tools = [{ name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }];

/** A header of the Messages API under `cachePolicy` and `cacheTtl`. */
function snapshotOf(cachePolicy: string, cacheTtl: "5m" | "1h"): RequestHeaderSnapshot {
  const header = buildEpochHeader({ provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024, cachePolicy, cacheTtl }, {}, tools, { api: "messages" });
  return { reason: "initial", header };
}

/** The blocks the simulator renders from the whole body of a request with `messages` under `snapshot`. */
async function wholeBlocks(snapshot: RequestHeaderSnapshot, messages: readonly Message[]) {
  const request = freezeRequest({ config: snapshot.header.config, messages: structuredClone(messages) as Message[], tools: snapshot.header.tools as typeof tools });
  return renderMessagesPrompt(JSON.parse(await serializeRequest(request)) as MessagesBody);
}

const text = (value: string) => [{ type: "text" as const, text: value }];
/** Messages a session adds: a tool step (a call and its result), a user turn, an answer, an answer that leaves no block. */
const step = (n: number): Message[] => [
  { role: "assistant", content: [{ type: "reasoning", text: `Think ${n}.`, signature: `sig-${n}` }, { type: "tool-call", callId: `c${n}`, name: "read_file", arguments: `{"path":"f${n}"}` }], source: "model" },
  { role: "tool", callId: `c${n}`, toolName: "read_file", content: text(`file ${n}`), isError: false, source: "tool" },
];
const pieces = fc.constantFrom<(n: number) => Message[]>(
  step,
  (n) => [{ role: "user", content: text(`More ${n}.`), source: "user" }],
  (n) => [{ role: "assistant", content: text(`Answer ${n}.`), source: "model" }],
  () => [{ role: "assistant", content: text(" "), source: "model" }],
);

describe("extendRendered", () => {
  it("renders a request that only adds messages as rendering its whole body does, whatever the policy, lifetime and cut", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(pieces, { minLength: 1, maxLength: 12 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        fc.constantFrom("rolling-v1", "system-and-last-user-v1", "none"),
        fc.constantFrom<"5m" | "1h">("5m", "1h"),
        async (made, cuts, policy, ttl) => {
          const snapshot = snapshotOf(policy, ttl);
          const messages: Message[] = [{ role: "system", content: "You check files.", source: "system-prompt" }, { role: "user", content: text("Check."), source: "user" }];
          made.forEach((piece, n) => messages.push(...piece(n)));
          // Requests at increasing lengths, each extending the one before, from the first one rendered whole.
          const ends = [...new Set([...cuts.map((cut) => 2 + (cut % (messages.length - 1))), messages.length])].sort((a, b) => a - b);
          let rendered = await renderedWhole(snapshot, messages.slice(0, ends[0]), await wholeBlocks(snapshot, messages.slice(0, ends[0])), attachments);
          for (let i = 1; i < ends.length; i++) {
            rendered = await extendRendered(rendered, snapshot, messages.slice(ends[i - 1], ends[i]), attachments);
            expect(rendered.blocks).toEqual(await wholeBlocks(snapshot, messages.slice(0, ends[i])));
          }
        },
      ),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 60) },
    );
  });

  it("continues the last wire message when the added messages start with its role", async () => {
    const snapshot = snapshotOf("rolling-v1", "5m");
    const first: Message[] = [{ role: "system", content: "s", source: "system-prompt" }, { role: "user", content: text("Check."), source: "user" }, ...step(0)];
    const added: Message[] = [{ role: "user", content: text("And this."), source: "user" }];
    const rendered = await extendRendered(await renderedWhole(snapshot, first, await wholeBlocks(snapshot, first), attachments), snapshot, added, attachments);
    expect(rendered.blocks.at(-1)!.path).toBe("messages.2.content.1");
    expect(rendered.blocks).toEqual(await wholeBlocks(snapshot, [...first, ...added]));
  });
});
