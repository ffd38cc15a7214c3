import { describe, expect, it } from "vitest";
import { systemMessageEvent, userMessageEvent } from "./events.js";
import { assistant, surfaceLog, toolResult, user } from "./test-support/session.js";

/** A surface of: 0 system, 1 user, 2 assistant(call a), 3 result a, 4 assistant, 5 user. */
async function populated() {
  const session = surfaceLog();
  await session.log.append([
    systemMessageEvent.input({ content: "prompt", source: "system-prompt" }),
    user("hi"),
    assistant("", [{ callId: "a", name: "read_file" }]),
    toolResult("a", "read_file", "contents"),
    assistant("done"),
    user("more"),
  ]);
  return session;
}

const replaces = (start: number, end: number, generation = 1) => ({ start, end, generation });

describe("surface admission", () => {
  it.each([
    ["a second system/message appended", async () => systemMessageEvent.input({ content: "x", source: "s" }), /lives at surface node 0/],
    ["a result for a call nobody made", async () => toolResult("zz", "read_file", "x"), /no tool call zz is awaiting a result/],
    ["a replace of a seq that is not on the surface", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(99, 99) }), /replace start 99 is not a current surface node/],
    ["a replace whose end comes before its start", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(4, 1) }), /comes before start/],
    ["a replace that skips a generation", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(1, 1, 2) }), /generation must be 1, got 2/],
    ["a compaction that splits a call from its result", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(1, 2) }), /leave the result of a without its call/],
    ["a compaction that leaves a result without its call", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(3, 4) }), /a tool\/result can only replace/],
    ["a user message replacing node 0", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "x", replaces: replaces(0, 1) }), /node 0 can only be replaced by a system\/message/],
    ["a system message replacing another node", async () => systemMessageEvent.input({ content: "p", source: "s", replaces: replaces(1, 1) }), /node 0 can only be replaced by a system\/message/],
    ["a prompt change spanning more than node 0", async () => systemMessageEvent.input({ content: "p", source: "s", replaces: replaces(0, 1) }), /replaces exactly the system\/message at node 0/],
    ["a trim that changes the callId", async () => ({ ...toolResult("b", "read_file", "short"), data: { ...toolResult("b", "read_file", "short").data as object, replaces: replaces(3, 3) } }), /must keep its callId, toolName and isError/],
    ["a replace whose end is not on the surface", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(1, 99) }), /replace end 99 is not a current surface node/],
    ["a replace by tool calls that no result follows", async () => ({ ...assistant("", [{ callId: "z", name: "read_file" }]), data: { ...(assistant("", [{ callId: "z", name: "read_file" }]).data as object), replaces: replaces(4, 4) } }), /would split tool calls z from their results/],
    ["a replace by two tool calls that no result follows", async () => ({ ...assistant("", [{ callId: "y", name: "read_file" }, { callId: "z", name: "read_file" }]), data: { ...(assistant("", [{ callId: "y", name: "read_file" }, { callId: "z", name: "read_file" }]).data as object), replaces: replaces(4, 4) } }), /would split tool calls y, z from their results/],
    ["a replace of the last node by tool calls", async () => ({ ...assistant("", [{ callId: "z", name: "read_file" }]), data: { ...(assistant("", [{ callId: "z", name: "read_file" }]).data as object), replaces: replaces(5, 5) } }), /would split tool calls z from their results/],
    ["a message replacing a single tool result", async () => userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(3, 3) }), /a tool\/result can only replace, or be replaced by, a single tool\/result/],
    ["a tool result replacing a message", async () => ({ ...toolResult("a", "read_file", "x"), data: { ...(toolResult("a", "read_file", "x").data as object), replaces: replaces(1, 1) } }), /a tool\/result can only replace, or be replaced by, a single tool\/result/],
    ["a tool result replacing a result and more", async () => ({ ...toolResult("a", "read_file", "x"), data: { ...(toolResult("a", "read_file", "x").data as object), replaces: replaces(3, 4) } }), /a tool\/result can only replace, or be replaced by, a single tool\/result/],
    ["a trim that changes the toolName", async () => ({ ...toolResult("a", "list_dir", "short"), data: { ...(toolResult("a", "list_dir", "short").data as object), replaces: replaces(3, 3) } }), /must keep its callId, toolName and isError/],
    ["a trim that flips isError", async () => ({ ...toolResult("a", "read_file", "short", true), data: { ...toolResult("a", "read_file", "short", true).data as object, replaces: replaces(3, 3) } }), /must keep its callId, toolName and isError/],
  ])("refuses %s", async (_what, makeInput, message) => {
    const { log } = await populated();
    const before = log.length;
    const rejection = log.append(await makeInput());
    await expect(rejection).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION" });
    await expect(rejection).rejects.toThrow(message);
    expect(log.length).toBe(before);
  });

  it("refuses anything but results while tool calls are open", async () => {
    const { log } = surfaceLog();
    await log.append([user("hi"), assistant("", [{ callId: "a", name: "list_dir" }, { callId: "b", name: "read_file" }])]);
    await expect(log.append(user("interrupt"))).rejects.toThrow(/tool calls a, b still await results/);
    await expect(log.append(toolResult("b", "list_dir", "x"))).rejects.toThrow(/made to read_file, not list_dir/);
    await log.append([toolResult("b", "read_file", "x"), toolResult("a", "list_dir", "y")]);
    await expect(log.append(user("now fine"))).resolves.toHaveLength(1);
  });

  it("refuses a replace while tool calls await results", async () => {
    const { log } = await populated();
    await log.append(assistant("", [{ callId: "c", name: "read_file" }]));
    await expect(log.append(userMessageEvent.input({ content: [{ type: "text", text: "s" }], source: "compaction", replaces: replaces(1, 1) }))).rejects.toThrow(
      /cannot replace surface nodes while tool calls await results/,
    );
  });

  it("refuses a prompt change on a surface whose node 0 is not a system message", async () => {
    const { log } = surfaceLog();
    await log.append([user("hi"), assistant("hello")]);
    await expect(log.append(systemMessageEvent.input({ content: "p", source: "system-prompt", replaces: replaces(0, 0) }))).rejects.toThrow(
      /replaces exactly the system\/message at node 0/,
    );
  });

  it("refuses an assistant message that repeats a call id", async () => {
    const { log } = surfaceLog();
    await expect(log.append(assistant("", [{ callId: "a", name: "x" }, { callId: "a", name: "y" }]))).rejects.toThrow(
      /repeats a tool call id/,
    );
  });

  it("admits the three replace kinds: prompt change, compaction and trim", async () => {
    const { log, manager } = await populated();
    await manager.replaceGeneration({ start: 0, end: 0 }, systemMessageEvent.input({ content: "new prompt", source: "system-prompt" }));
    await manager.replaceGeneration({ start: 1, end: 4 }, user("summary of the earlier turn", "compaction"));
    await log.append([assistant("", [{ callId: "c", name: "read_file" }]), toolResult("c", "read_file", "long output")]);
    await manager.replaceGeneration({ start: 9, end: 9 }, toolResult("c", "read_file", "[trimmed]"));
    expect(manager.generation).toBe(3);
    expect(manager.nodeSeqs()).toEqual([6, 7, 5, 8, 10]);
    expect(manager.deriveMessages().map((message) => message.role)).toEqual(["system", "user", "user", "assistant", "tool"]);
  });
});
