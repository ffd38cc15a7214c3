import { MemoryAttachmentStore } from "dsh-attachments";
import { serializeRequest } from "dsh-gemini";
import { freezeRequest, type Message } from "dsh-llm";
import { geminiPromptTokens } from "dsh-simulator";
import { describe, expect, it } from "vitest";
import { extendGeminiTail, extendGeminiTokens, geminiTailOf } from "./gemini-measure.js";
import { commonPrefix } from "./common-prefix.js";

const config = { provider: "gemini", model: "gemini-3.8-flash" } as const;
const tools = [{ name: "f", description: "A tool", parameters: { type: "object", properties: {} } }];
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" });
const answer = (text: string): Message => ({ role: "assistant", source: "model", content: [{ type: "text", text }] });
const callBlock = (id: string) => ({ type: "tool-call", callId: id, itemId: id, name: "f", arguments: `{"n":"${id}"}` }) as const;
const call = (id: string): Message => ({ role: "assistant", source: "model", content: [callBlock(id)] });
const result = (id: string): Message => ({ role: "tool", callId: id, toolName: "f", content: [{ type: "text", text: `out ${id}` }], isError: false, source: "tool" });

// Every way a request can end and the next add to it: a new content of the other role, a result or a
// user message joining the last content, an answer that leaves no part (so the next user message joins
// the content before it).
const session: Message[] = [
  { role: "system", content: "Be brief.", source: "system-prompt" },
  user("Go"),
  call("a"),
  result("a"),
  user("and this"),
  answer("Done a."),
  user("next"),
  answer(""),
  user("again"),
  { role: "assistant", source: "model", content: [callBlock("b"), callBlock("c")] },
  result("b"),
  result("c"),
  answer("Done b and c."),
];

const wholeTokens = async (messages: readonly Message[]) => geminiPromptTokens(JSON.parse(await serializeRequest(freezeRequest({ config, messages: [...messages], tools }))));

describe("extendGeminiTail", () => {
  it("counts a request that only adds messages as measuring it whole does, at every cut and every length", async () => {
    const attachments = new MemoryAttachmentStore();
    for (let cut = 2; cut < session.length; cut++) {
      for (let end = cut + 1; end <= session.length; end++) {
        const before = await wholeTokens(session.slice(0, cut));
        const after = await wholeTokens(session.slice(0, end));
        const tail = await geminiTailOf(session.slice(0, cut), attachments);
        const extended = await extendGeminiTail(tail, before.length, session.slice(cut, end));
        expect([cut, end, extended.promptTokens, extended.sharedTokens]).toEqual([cut, end, after.length, commonPrefix(before, after)]);
        // The tail it leaves extends as well as one measured whole.
        if (end < session.length) {
          const again = await extendGeminiTail(extended.tail, after.length, session.slice(end));
          expect(again.promptTokens).toBe((await wholeTokens(session)).length);
        }
      }
    }
  });
});

describe("extendGeminiTokens", () => {
  it("gives a request that only adds messages the tokens of its whole body, at every cut and every length", async () => {
    const attachments = new MemoryAttachmentStore();
    for (let cut = 2; cut < session.length; cut++) {
      const before = await wholeTokens(session.slice(0, cut));
      for (let end = cut + 1; end <= session.length; end++) {
        const extended = await extendGeminiTokens(await geminiTailOf(session.slice(0, cut), attachments), before, session.slice(cut, end));
        expect([cut, end, ...extended.tokens]).toEqual([cut, end, ...(await wholeTokens(session.slice(0, end)))]);
        if (end < session.length) expect([...(await extendGeminiTokens(extended.tail, extended.tokens, session.slice(end))).tokens]).toEqual([...(await wholeTokens(session))]);
      }
    }
  });
});
