import fc from "fast-check";
import { StreamAssembler, freezeRequest, type JsonObject } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { serializeRequest } from "./serialize.js";
import { parseResponsesStream } from "./stream.js";

/** An SSE body of the given events. */
function body(events: readonly object[]): ReadableStream<Uint8Array> {
  const text = events.map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

/** The answer the adapter logs for a response whose output is `items`, then the input items it sends that answer back as. */
async function roundTrip(items: readonly JsonObject[]): Promise<unknown[]> {
  const assembler = new StreamAssembler();
  const events = [...items.map((item, index) => ({ type: "response.output_item.done", output_index: index, item })), { type: "response.completed", response: { id: "resp_1", status: "completed" } }];
  for await (const chunk of parseResponsesStream(body(events), 5_000)) assembler.push(chunk);
  const { content } = assembler.result();
  const request = freezeRequest({
    config: { provider: "openai-responses", model: "gpt-5.6" },
    messages: [
      { role: "user", content: [{ type: "text", text: "hi" }], source: "user" },
      { role: "assistant", content, source: "model" },
    ],
  });
  const input = (JSON.parse(await serializeRequest(request)) as { input: unknown[] }).input;
  return input.slice(1);
}

/** An item as it means: empty annotations and log probabilities are the same as none, and key order does not count. */
function meaning(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(meaning);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).filter(([key, inner]) => !((key === "annotations" || key === "logprobs") && Array.isArray(inner) && inner.length === 0));
  return Object.fromEntries(entries.sort(([a], [b]) => a.localeCompare(b)).map(([key, inner]) => [key, meaning(inner)]));
}

const text = fc.string({ minLength: 1 });
const outputText = fc.record({ type: fc.constant("output_text"), text, annotations: fc.oneof(fc.constant([]), fc.constant([{ type: "url_citation", url: "https://example.org", start_index: 0, end_index: 1 }])), logprobs: fc.constant([]) }, { requiredKeys: ["type", "text"] });
const refusal = fc.record({ type: fc.constant("refusal"), refusal: text });
const message = fc.record({ type: fc.constant("message"), status: fc.constantFrom("completed", "incomplete"), role: fc.constant("assistant"), content: fc.array(fc.oneof(outputText, refusal), { minLength: 1, maxLength: 3 }) });
const reasoning = fc.constant({ type: "reasoning", summary: [], encrypted_content: "enc" });
const call = fc.constant({ type: "function_call", status: "completed", arguments: "{}", name: "f" });
/** An answer's output items, each with an id of its own (and a call its own call id). */
const answer = fc.array(fc.oneof(message, reasoning, call), { minLength: 1, maxLength: 5 }).map((items) =>
  items.map((item, i): JsonObject => ({ ...item, id: `${item.type}_${i}`, ...(item.type === "function_call" ? { call_id: `call_${i}` } : {}) })),
);

describe("an answer's items go back as they came", () => {
  it("a refusal goes back as a refusal, under its own item id", async () => {
    const refused = { id: "msg_1", type: "message", status: "completed", role: "assistant", content: [{ type: "refusal", refusal: "I can't help with that." }] };
    expect(await roundTrip([refused])).toEqual([refused]);
  });

  it("any mix of messages (text, citations, refusals, cut off), reasoning followed by its item, and calls", async () => {
    await fc.assert(
      fc.asyncProperty(answer, async (items) => {
        // Reasoning that ends the answer is not sent back (the API refuses it without its following item).
        let sent = items.length;
        while (sent > 0 && items[sent - 1]!.type === "reasoning") sent--;
        expect(meaning(await roundTrip(items))).toEqual(meaning(items.slice(0, sent)));
      }),
      { numRuns: 200 },
    );
  });
});
