import { describe, expect, it } from "vitest";
import { exploreResponse } from "./explore.js";
import { messagesExploreView } from "./messages-explore.js";
import { responsesExploreView } from "./responses-serve.js";

const tools = [{ type: "function", function: { name: "list_dir" } }];

describe("exploreResponse", () => {
  it("lists the directory first, then reads the first file the listing shows, then answers with what it read", () => {
    const ask = [{ role: "system", content: "Be brief." }, { role: "user", content: "Look around." }];
    expect(exploreResponse({ messages: ask, tools })).toEqual({ text: "Let me look around.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] });
    const listed = [...ask, { role: "assistant", content: "" }, { role: "tool", content: "\n  src/\nError: hidden\n  notes.txt \nREADME.md" }];
    expect(exploreResponse({ messages: listed, tools })).toEqual({ toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] });
    const read = [...listed, { role: "assistant", content: "" }, { role: "tool", content: "\n\nFirst line of notes.\nSecond." }];
    expect(exploreResponse({ messages: read, tools })).toEqual({ text: "I listed the directory and read one file (30 characters). It begins: First line of notes." });
  });

  it("offered a delegate tool, hands the work to a subagent and reports what it found, in every API's tool shape", () => {
    const ask = [{ role: "user", content: "Look around." }];
    const delegate = { text: "Let me hand this to a subagent.", toolCalls: [{ name: "delegate", arguments: { task: "List the working directory, read the first file you find, and say what it holds." } }] };
    for (const offered of [[...tools, { type: "function", function: { name: "delegate" } }], [{ name: "delegate", input_schema: {} }], [{ type: "function", name: "delegate" }], [{ functionDeclarations: [{ name: "list_dir" }, { name: "delegate" }] }]]) {
      expect(exploreResponse({ messages: ask, tools: offered })).toEqual(delegate);
    }
    const reported = [...ask, { role: "assistant", content: "" }, { role: "tool", content: `It holds\n  notes. ${"x".repeat(300)}` }];
    expect(exploreResponse({ messages: reported, tools: [{ name: "delegate" }] })).toEqual({ text: `A subagent looked around for me. It reported: It holds notes. ${"x".repeat(183)}…` });
    // A tool that merely mentions the name is not it.
    expect(exploreResponse({ messages: ask, tools: [{ name: "delegates" }] })).toMatchObject({ toolCalls: [{ name: "list_dir" }] });
  });

  it("told to use several subagents, calls them all in one answer, each with its part, and reports each", () => {
    const ask = [{ role: "user", content: "Look around." }];
    const task = "List the working directory, read the first file you find, and say what it holds.";
    expect(exploreResponse({ messages: ask, tools: [{ name: "delegate" }] }, 2)).toEqual({
      text: "Let me hand this to 2 subagents at once.",
      toolCalls: [
        { name: "delegate", arguments: { task: `${task} You are subagent 1 of 2.` } },
        { name: "delegate", arguments: { task: `${task} You are subagent 2 of 2.` } },
      ],
    });
    const reported = [...ask, { role: "assistant", content: "" }, { role: "tool", content: "Notes\n here." }, { role: "tool", content: `Plans. ${"y".repeat(200)}` }];
    expect(exploreResponse({ messages: reported, tools: [{ name: "delegate" }] }, 2)).toEqual({ text: `2 subagents looked around for me. They reported: 1: Notes here. 2: Plans. ${"y".repeat(112)}…` });
  });

  it("counts only the results after the last user message, and answers with the listing when it shows no file", () => {
    const earlier = [{ role: "user", content: "First." }, { role: "tool", content: "a.txt" }, { role: "tool", content: "text" }, { role: "user", content: "Again." }];
    expect(exploreResponse({ messages: earlier, tools }).toolCalls).toEqual([{ name: "list_dir", arguments: { path: "." } }]);
    const onlyDirectories = [...earlier, { role: "tool", content: "src/\nError: denied" }];
    expect(exploreResponse({ messages: onlyDirectories, tools })).toEqual({ text: "The directory listing was:\nsrc/\nError: denied" });
    expect(exploreResponse({ messages: [{ role: "user", content: "Go." }, { role: "tool", content: "" }, { role: "tool" }], tools })).toEqual({ text: "I listed the directory and read one file (0 characters). It begins: " });
    const spaced = [{ role: "user", content: "Go." }, { role: "tool", content: "a.txt" }, { role: "tool", content: "   \nBody." }];
    expect(exploreResponse({ messages: spaced, tools }).text).toBe("I listed the directory and read one file (9 characters). It begins: Body.");
  });

  it("summarizes a request that offers no tools from its second line of conversation, cut to 160 characters", () => {
    const messages = [{ role: "system", content: "You summarize." }, { role: "user", content: `[earlier]\n\nThe user asked about ${"x".repeat(200)}\nthen more` }, { role: "assistant", content: [{ type: "text" }] }];
    const { text } = exploreResponse({ messages });
    expect(text).toMatch(/^Earlier, 3 lines of conversation; it began: The user asked about x+/);
    expect(text!.length).toBeLessThan("Earlier, 3 lines of conversation; it began: ".length + 165);
    expect(exploreResponse({ messages: [{ role: "user", content: "Only." }] })).toEqual({ text: "Earlier, 1 lines of conversation; it began: Only." });
    // Each message's text is a line of its own; blank lines and content that is no text are not counted.
    expect(exploreResponse({ messages: [{ role: "user", content: "One" }, { role: "user", content: "   " }, { role: "assistant", content: 7 }, { role: "user", content: "Two" }] })).toEqual({ text: "Earlier, 2 lines of conversation; it began: Two" });
    expect(exploreResponse({})).toEqual({ text: "Earlier, 0 lines of conversation; it began: " });
    expect(exploreResponse({ messages: "none", tools })).toEqual({ text: "Let me look around.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] });
  });
});

describe("messagesExploreView", () => {
  it("turns a Messages API body into Chat Completions messages: the system prompt, text by role, tool results as tool messages", () => {
    const body = {
      system: [{ type: "text", text: "Be " }, { type: "text", text: "brief." }],
      tools: [{ name: "list_dir" }],
      messages: [
        { role: "user", content: "Look around." },
        { role: "assistant", content: [{ type: "thinking", thinking: "hm" }, { type: "tool_use", id: "t", name: "list_dir", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "a.txt" }, { type: "image" }] }, { type: "tool_result", tool_use_id: "u", content: "b.txt" }, { type: "text", text: "And?" }] },
        { role: "user", content: [{ type: "image" }, { type: "document", text: "not text" }] },
        { role: "user", content: [{ type: "text" }, { type: "text", text: "Fine." }] },
        { role: "assistant", content: 7 },
      ],
    };
    expect(messagesExploreView(body)).toEqual({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Look around." },
        { role: "assistant", content: "" },
        { role: "tool", content: "a.txt" },
        { role: "tool", content: "b.txt" },
        { role: "user", content: "And?" },
        { role: "user", content: "Fine." },
        { role: "assistant", content: "" },
      ],
      tools: [{ name: "list_dir" }],
    });
  });

  it("leaves tools out when none are offered, and reads a system prompt given as a string", () => {
    const view = messagesExploreView({ system: "Summarize.", messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] });
    expect(view).toEqual({ messages: [{ role: "system", content: "Summarize." }, { role: "user", content: "x" }] });
    expect("tools" in view).toBe(false);
    expect(messagesExploreView({})).toEqual({ messages: [] });
  });
});

describe("responsesExploreView", () => {
  it("turns a Responses body into Chat Completions messages: developer text as system, calls as assistant calls, outputs as tool messages", () => {
    const body = {
      tools: [{ type: "function", name: "list_dir" }],
      input: [
        { role: "developer", content: "Be brief." },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Look " }, { type: "input_text", text: "around." }, { type: "input_image" }] },
        { type: "reasoning", summary: [] },
        { type: "function_call", name: "list_dir", call_id: "c", arguments: "{}" },
        { type: "function_call_output", call_id: "c", output: "a.txt" },
        { type: "function_call_output", call_id: "d" },
        null,
      ],
    };
    expect(responsesExploreView(body)).toEqual({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Look around." },
        { role: "assistant", tool_calls: [{ function: { name: "list_dir" } }] },
        { role: "tool", content: "a.txt" },
        { role: "tool", content: "" },
      ],
      tools: [{ type: "function", name: "list_dir" }],
    });
  });

  it("reads an input given as a string as one user message, and leaves tools out when none are offered", () => {
    const view = responsesExploreView({ input: "Summarize." });
    expect(view).toEqual({ messages: [{ role: "user", content: "Summarize." }] });
    expect("tools" in view).toBe(false);
  });
});
