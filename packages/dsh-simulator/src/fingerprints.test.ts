import { describe, expect, it } from "vitest";
import { digest } from "./diagnosis.js";
import { Diagnostician, messagesFingerprint, responsesFingerprint } from "./fingerprints.js";
import { renderMessagesPrompt, type MessagesBody } from "./messages-prompt.js";
import { renderResponsesPrompt, type ResponsesBody } from "./responses-prompt.js";

const messagesBody: MessagesBody = {
  model: "claude-sonnet-4-6",
  tools: [{ name: "a", input_schema: {} }],
  system: [{ type: "text", text: "Be terse." }],
  messages: [
    { role: "user", content: [{ type: "text", text: "hi" }] },
    { role: "assistant", content: [{ type: "text", text: "yo", cache_control: { type: "ephemeral" } }] },
  ],
};
const marked = (body: MessagesBody): MessagesBody => ({ ...body, system: [{ type: "text", text: "Be terse.", cache_control: { type: "ephemeral", ttl: "1h" } }] });
const print = (body: MessagesBody) => messagesFingerprint(body, renderMessagesPrompt(body));

describe("messagesFingerprint", () => {
  it("keeps the model and digests of the tools and the system prompt, markers left out, and each message block with its message's place", () => {
    const blocks = renderMessagesPrompt(messagesBody);
    const fingerprint = messagesFingerprint(messagesBody, blocks);
    expect(fingerprint.settings).toEqual([
      ["model_changed", "claude-sonnet-4-6"],
      ["tools_changed", digest([{ name: "a", input_schema: {} }])],
      ["system_changed", digest([{ type: "text", text: "Be terse." }])],
    ]);
    expect(fingerprint.partsReason).toBe("messages_changed");
    expect(fingerprint.base).toBe(blocks.find((block) => block.path === "system.0")!.cumulativeTokens);
    expect(fingerprint.parts).toEqual([
      { hash: digest(["0", { type: "text", text: "hi" }]), end: blocks.find((block) => block.path === "messages.0.content.0")!.cumulativeTokens },
      { hash: digest(["1", { type: "text", text: "yo" }]), end: blocks.at(-1)!.cumulativeTokens },
    ]);
    expect(print(marked(messagesBody))).toEqual(fingerprint);
  });

  it("starts the messages after the tools when there is no system prompt, and at 0 with neither", () => {
    const withoutSystem = { ...messagesBody, system: undefined };
    const blocks = renderMessagesPrompt(withoutSystem);
    expect(messagesFingerprint(withoutSystem, blocks).base).toBe(blocks.find((block) => block.path === "tools.0")!.cumulativeTokens);
    expect(print({ ...withoutSystem, tools: undefined }).base).toBe(0);
  });
});

const responsesBody: ResponsesBody = {
  model: "gpt-5.5",
  instructions: "Be terse.",
  tools: [{ type: "function", name: "a", parameters: {} }],
  reasoning: { effort: "high" },
  prompt_cache_key: "k",
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }],
};

describe("responsesFingerprint", () => {
  it("keeps the model, the cache key, a digest of the tools and the effort, and each segment after the tools with its end", () => {
    const segments = renderResponsesPrompt(responsesBody);
    const fingerprint = responsesFingerprint(responsesBody, [10, 20, 30]);
    expect(fingerprint.settings).toEqual([
      ["model_changed", "gpt-5.5"],
      ["prompt_cache_key_changed", "k"],
      ["tools_changed", digest(responsesBody.tools)],
      ["reasoning_effort_changed", "high"],
    ]);
    expect(fingerprint.partsReason).toBe("input_changed");
    expect(fingerprint.base).toBe(10);
    expect(fingerprint.parts).toEqual([
      { hash: digest(segments[1]!.text), end: 20 },
      { hash: digest(segments[2]!.text), end: 30 },
    ]);
  });

  it("has no tools segment without tools or with none listed, and empty values for settings not given", () => {
    const bare: ResponsesBody = { model: "gpt-5.5", input: responsesBody.input };
    const fingerprint = responsesFingerprint(bare, [7]);
    expect(fingerprint.settings).toEqual([
      ["model_changed", "gpt-5.5"],
      ["prompt_cache_key_changed", ""],
      ["tools_changed", digest([])],
      ["reasoning_effort_changed", ""],
    ]);
    expect(fingerprint.base).toBe(0);
    expect(fingerprint.parts).toEqual([{ hash: digest(renderResponsesPrompt(bare)[0]!.text), end: 7 }]);
    expect(responsesFingerprint({ ...bare, tools: [] }, [7])).toEqual({ ...fingerprint, settings: [fingerprint.settings[0], fingerprint.settings[1], ["tools_changed", digest([])], fingerprint.settings[3]] });
    // Ends the caller did not count are 0.
    expect(responsesFingerprint(responsesBody, []).base).toBe(0);
    expect(responsesFingerprint(responsesBody, [5]).parts.map((part) => part.end)).toEqual([0, 0]);
  });
});

describe("Diagnostician", () => {
  const asked = (body: MessagesBody, previous?: string) => ({ ...body, diagnostics: previous === undefined ? {} : { previous_message_id: previous } });

  it("answers Anthropic's diagnostics only when asked, keeping each asking request under its answer's id", () => {
    const doctor = new Diagnostician();
    const blocks = renderMessagesPrompt(messagesBody);
    expect(doctor.messages(messagesBody, blocks, "m0")).toBeUndefined();
    expect(doctor.messages({ ...messagesBody, diagnostics: null }, blocks, "m0")).toBeUndefined();
    expect(doctor.saved()).toEqual([]);
    expect(doctor.messages(asked(messagesBody), blocks, "m1")).toBeNull();
    expect(doctor.saved()).toEqual([["m1", messagesFingerprint(messagesBody, blocks)]]);
    expect(doctor.messages(asked(messagesBody, "gone"), blocks, "m2")).toEqual({ cache_miss_reason: { type: "previous_message_not_found", cache_missed_input_tokens: 0 } });
    const longer = { ...messagesBody, messages: [...(messagesBody.messages as object[]), { role: "user", content: [{ type: "text", text: "more" }] }] };
    expect(doctor.messages(asked(longer, "m1"), renderMessagesPrompt(longer), "m3")).toBeNull();
    const edited = { ...messagesBody, system: [{ type: "text", text: "Be verbose." }] };
    expect(doctor.messages(asked(edited, "m3"), renderMessagesPrompt(edited), "m4")).toEqual({ cache_miss_reason: { type: "system_changed", cache_missed_input_tokens: renderMessagesPrompt(longer).at(-1)!.cumulativeTokens } });
    expect(doctor.saved().map(([id]) => id)).toEqual(["m1", "m2", "m3", "m4"]);
  });

  it("keeps every Responses request and compares only when asked, naming the tokens missed and reusable", () => {
    const doctor = new Diagnostician();
    expect(doctor.responses(responsesBody, [10, 20, 30], "r1")).toBeUndefined();
    const compared = (body: ResponsesBody, id: string): ResponsesBody => ({ ...body, prompt_cache_options: { comparison_response_id: id } });
    expect(doctor.responses(compared(responsesBody, "gone"), [10, 20, 30], "r2")).toEqual({ type: "comparison_response_not_found" });
    expect(doctor.responses(compared(responsesBody, "r1"), [10, 20, 30], "r3")).toEqual({ type: "cache_hit" });
    const edited = { ...responsesBody, input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }] };
    expect(doctor.responses(compared(edited, "r3"), [10, 20, 31], "r4")).toEqual({ type: "cache_miss", reason: "input_changed", cache_missed_tokens: 10, comparison_reusable_tokens: 20 });
    expect(doctor.saved().map(([id]) => id)).toEqual(["r1", "r2", "r3", "r4"]);
  });

  it("diagnoses against fingerprints a cache file kept, as if their requests had been served by it", () => {
    const first = new Diagnostician();
    first.responses(responsesBody, [10, 20, 30], "r1");
    const next = new Diagnostician();
    next.restore(first.saved());
    expect(next.saved()).toEqual(first.saved());
    expect(next.responses({ ...responsesBody, model: "gpt-5.5-mini", prompt_cache_options: { comparison_response_id: "r1" } }, [10, 20, 30], "r2")).toEqual({ type: "cache_miss", reason: "model_changed", cache_missed_tokens: 30, comparison_reusable_tokens: 0 });
  });
});
