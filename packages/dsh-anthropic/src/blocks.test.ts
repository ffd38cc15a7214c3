import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { freezeRequest, type Message } from "dsh-llm";
import { makePng } from "dsh-testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extendLayout, layoutRequest, toolInput } from "./blocks.js";
import { toolSessionRequest } from "./test-support/session.js";
import { RawJson, writeWireJson } from "./wire-json.js";

const layout = (messages: Message[], attachments?: MemoryAttachmentStore) =>
  layoutRequest(freezeRequest({ config: { provider: "anthropic", model: "m" }, messages }).messages, undefined, attachments);

describe("toolInput", () => {
  it("keeps the model's own text for a JSON object, and sends {} for anything else", () => {
    expect(toolInput('{"b": 1, "10": 2}')).toEqual(new RawJson('{"b": 1, "10": 2}'));
    for (const text of ["", "[1]", "null", '"text"', "7", "{broken"]) expect(toolInput(text)).toEqual({});
  });
});

describe("writeWireJson", () => {
  it("writes JSON.stringify's bytes around verbatim raw text, at any depth", () => {
    const value = { a: [1, "x", null, true, { b: new RawJson('{"z": 1, "1": 2}') }], c: "é\n" };
    expect(writeWireJson(value)).toBe('{"a":[1,"x",null,true,{"b":{"z": 1, "1": 2}}],"c":"é\\n"}');
    expect(writeWireJson(["s", 1.5, { "": {} }])).toBe(JSON.stringify(["s", 1.5, { "": {} }]));
  });
});

describe("layoutRequest", () => {
  it("drops empty text but keeps the message's other blocks, and leaves out an empty system prompt", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(1, 1));
    const result = await layout(
      [
        { role: "system", content: "", source: "system-prompt" },
        { role: "user", content: [{ type: "text", text: "" }, { type: "image", image }], source: "user" },
      ],
      store,
    );
    expect(result.blocks.map((block) => [block.section, block.value.type, block.markable])).toEqual([["messages", "image", true]]);
    expect(result.roles).toEqual(["user"]);
  });

  it("marks thinking and redacted thinking unmarkable, and merges consecutive messages of one role", async () => {
    const result = await layout([
      { role: "user", content: [{ type: "text", text: "go" }], source: "user" },
      { role: "assistant", content: [{ type: "reasoning", text: "t", signature: "s" }, { type: "redacted-reasoning", data: "d" }, { type: "text", text: "ok" }], source: "model" },
      { role: "assistant", content: [{ type: "text", text: "more" }], source: "model" },
      { role: "user", content: [{ type: "text", text: "next" }], source: "inject" },
    ]);
    expect(result.roles).toEqual(["user", "assistant", "user"]);
    expect(result.blocks.map((block) => [block.message, block.value.type, block.markable, block.source])).toEqual([
      [0, "text", true, "user"],
      [1, "thinking", false, "model"],
      [1, "redacted_thinking", false, "model"],
      [1, "text", true, "model"],
      [1, "text", true, "model"],
      [2, "text", true, "inject"],
    ]);
  });

  it("refuses what the Messages API cannot carry, in one clear line", async () => {
    await expect(layout([{ role: "user", content: [{ type: "text", text: "a" }], source: "user" }, { role: "system", content: "late", source: "inject" }])).rejects.toMatchObject({
      code: "LLM_INVALID_REQUEST",
      retryable: false,
      message: "a system message may only be the first message: the Messages API has one system prompt",
    });
    const image = await putImage(new MemoryAttachmentStore(), makePng(1, 1));
    await expect(layout([{ role: "user", content: [{ type: "image", image }], source: "user" }])).rejects.toMatchObject({
      code: "LLM_ATTACHMENT",
      retryable: false,
      message: `image ${image.digest} cannot be sent: no attachment store was given`,
    });
  });
});

describe("extendLayout", () => {
  it("lays out a request that only adds messages as layoutRequest lays out the whole list", async () => {
    const step = fc.record({ thinking: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), calls: fc.integer({ min: 1, max: 4 }) });
    // A user turn (it joins the tool results before it), an answer that leaves no block, an answer.
    const extra = fc.constantFrom<Message>(
      { role: "user", content: [{ type: "text", text: "More." }], source: "user" },
      { role: "assistant", content: [{ type: "text", text: " " }], source: "model" },
      { role: "assistant", content: [{ type: "text", text: "Done." }], source: "model" },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 4 }), fc.array(extra, { maxLength: 3 }), fc.nat(), async (steps, extras, at) => {
        const request = toolSessionRequest(steps);
        const messages = [...request.messages, ...extras];
        // The system prompt can only come first: the first part keeps it.
        const cut = 1 + (at % messages.length);
        const whole = await layoutRequest(messages, request.tools, undefined);
        expect(await extendLayout(await layoutRequest(messages.slice(0, cut), request.tools, undefined), messages.slice(cut), undefined)).toEqual(whole);
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });

  it("leaves the layout it extends as it was, and refuses a system message after the first", async () => {
    const before = await layout([{ role: "user", content: [{ type: "text", text: "a" }], source: "user" }]);
    const copy = structuredClone(before);
    const after = await extendLayout(before, [{ role: "user", content: [{ type: "text", text: "b" }], source: "user" }], undefined);
    expect(before).toEqual(copy);
    expect(after.blocks.map((block) => block.message)).toEqual([0, 0]);
    await expect(extendLayout(before, [{ role: "system", content: "s", source: "system-prompt" }], undefined)).rejects.toMatchObject({ code: "LLM_INVALID_REQUEST" });
  });
});
