import { describe, expect, it } from "vitest";
import { isDeepFrozen } from "dsh-llm";
import { assistantMessageEvent, deriveEventMessage, systemMessageEvent, toolResultEvent, userMessageEvent, type SurfaceEvent } from "./events.js";
import { assistant, surfaceLog, toolResult, user } from "./test-support/session.js";

const half = "😀".slice(0, 1);

describe("surface events refuse half a character in model-visible text", () => {
  it.each([
    ["a system prompt", systemMessageEvent.input({ content: `be brief${half}`, source: "system-prompt" }), "content"],
    ["a user message", userMessageEvent.input({ content: [{ type: "text", text: `hi${half}` }], source: "user" }), "content[0].text"],
    ["an answer's text", assistantMessageEvent.input({ content: [{ type: "text", text: `${half}ok` }], source: "model" }), "content[0].text"],
    ["an answer's reasoning", assistantMessageEvent.input({ content: [{ type: "reasoning", text: half }], source: "model" }), "content[0].text"],
    ["a tool call's arguments", assistantMessageEvent.input({ content: [{ type: "tool-call", callId: "c", name: "t", arguments: `{"a":"${half}"}` }], source: "model" }), "content[0].arguments"],
    ["a tool result", toolResultEvent.input({ callId: "c", toolName: "t", content: [{ type: "text", text: half }], isError: false, source: "tool" }), "content[0].text"],
  ])("refuses %s with a lone surrogate, naming where", async (_what, input, path) => {
    const { log } = surfaceLog();
    const refusal = log.append(input);
    await expect(refusal).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
    await expect(refusal).rejects.toThrow(`${path}: half of a character (a lone surrogate)`);
    expect(log.length).toBe(0);
  });

  it("admits whole characters, escaped surrogates in JSON text and whitespace-only text as they are", async () => {
    const { log } = surfaceLog();
    await log.append([
      systemMessageEvent.input({ content: " \n", source: "system-prompt" }),
      user("😀 e\u0301"),
      assistantMessageEvent.input({ content: [{ type: "tool-call", callId: "c", name: "t", arguments: '{"a":"\\ud83d"}' }], source: "model" }),
      toolResult("c", "t", "\n"),
    ]);
    expect(log.length).toBe(4);
  });
});

describe("deriveEventMessage", () => {
  it("keeps a tool result's error flag and every field the request needs", async () => {
    const { log } = surfaceLog();
    await log.append(assistant("", [{ callId: "c1", name: "read_file" }, { callId: "c2", name: "read_file" }]));
    const [failed, fine] = await log.append([toolResult("c1", "read_file", "no such file", true), toolResult("c2", "read_file", "ok")]);
    expect(deriveEventMessage(failed as SurfaceEvent)).toEqual({ role: "tool", callId: "c1", toolName: "read_file", content: [{ type: "text", text: "no such file" }], isError: true, source: "tool" });
    expect(deriveEventMessage(fine as SurfaceEvent)).toMatchObject({ isError: false });
  });

  it("freezes the message around logged content without copying or walking it, and deep-freezes hand-built content", async () => {
    const { log } = surfaceLog();
    const [logged] = await log.append([userMessageEvent.input({ content: [{ type: "text", text: "hi" }], source: "user" })]);
    const message = deriveEventMessage(logged as SurfaceEvent) as { content: unknown };
    expect(message.content).toBe((logged!.data as { content: unknown }).content);
    expect(Object.isFrozen(message)).toBe(true);
    const content = [{ type: "text" as const, text: "by hand" }];
    const handMade = { seq: 0, time: 0, type: "user/message", data: { content, source: "user" } } as unknown as SurfaceEvent;
    const derived = deriveEventMessage(handMade);
    expect(isDeepFrozen(derived)).toBe(true);
    expect(Object.isFrozen(content[0])).toBe(true);
    const system = deriveEventMessage({ seq: 0, time: 0, type: "system/message", data: { content: "Be brief.", source: "system-prompt" } } as unknown as SurfaceEvent);
    expect([Object.isFrozen(system), system.content]).toEqual([true, "Be brief."]);
  });
});
