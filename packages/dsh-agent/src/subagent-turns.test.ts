import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore, type EventLog } from "dsh-log";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requestHeaderEvent } from "dsh-header";
import { requestDispatchEvent, stepEndEvent, stepStartEvent, turnEndEvent, turnStartEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { sessionParentEvent } from "./session-parent.js";
import { subagentSessionId, subagentTool } from "./subagent.js";
import { subagentTurns } from "./subagent-turns.js";
import { defineTool, isSubagentTool, ToolRegistry } from "./tools.js";
import { z } from "zod";

let dir: string;
let store: JsonlStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-subagent-turns-"));
  store = new JsonlStore(dir);
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

const config = { provider: "p", model: "m" } as const;
const text = (value: string) => [{ type: "text" as const, text: value }];
const call = (callId: string, name: string, args: string) => ({ type: "tool-call" as const, callId, name, arguments: args });

/** A parent whose open answer calls `calls`, with results logged for `answered`; returns the log (open) and the tools. */
async function parent(calls: ReturnType<typeof call>[], answered: string[] = []) {
  const { info, log } = await store.create({ registry: createAgentRegistry() });
  const research = subagentTool({ name: "research", description: "Researches.", store, parentSessionId: info.sessionId, runtime: new LlmRuntime({ adapters: [] }), config, systemPrompt: "You research." });
  const look = defineTool({ name: "look", description: "Looks.", parameters: z.object({}), execute: () => "seen" });
  await log.append([
    turnStartEvent.input({ turn: 0 }),
    stepStartEvent.input({ turn: 0, step: 0 }),
    systemMessageEvent.input({ content: "s", source: "system-prompt" }),
    userMessageEvent.input({ content: text("q"), source: "user" }),
    requestHeaderEvent.input({ reason: "initial", header: { config } }),
    requestDispatchEvent.input({ turn: 0, step: 0 }),
    assistantMessageEvent.input({ content: calls, source: "model" }),
    ...answered.map((callId) => toolResultEvent.input({ callId, toolName: calls.find((c) => c.callId === callId)!.name, content: text("done"), isError: false, source: "tool" })),
  ]);
  return { id: info.sessionId, log, tools: [research, look] };
}

async function childEvents(id: string): Promise<EventLog> {
  return (await store.read(id, createAgentRegistry())).log;
}

describe("subagentTurns", () => {
  it("lists each subagent call of the open answer still without a result, with its child session created and linked, in call order", async () => {
    const { id, log, tools } = await parent(
      [call("a", "research", '{"task":"one"}'), call("b", "look", "{}"), call("c", "research", '{"task":"done already"}'), call("d", "research", "not json"), call("e", "research", '{"task":""}'), call("f", "research", '{"task":"two"}')],
      ["a"],
    );
    // "a" has its result: the answer's calls from "b" on are open.
    const turns = await subagentTurns(log, new ToolRegistry(tools));
    const answerSeq = 6;
    expect(turns).toEqual([
      { callId: "c", sessionId: await subagentSessionId(id, answerSeq, "c"), turn: 0, head: 1, task: "done already", config, systemPrompt: "You research." },
      { callId: "f", sessionId: await subagentSessionId(id, answerSeq, "f"), turn: 0, head: 1, task: "two", config, systemPrompt: "You research." },
    ]);
    const child = await childEvents(turns[1]!.sessionId);
    expect(child.slice().map((event) => event.type)).toEqual(["session/parent"]);
    expect(sessionParentEvent.is(child.get(0)!) && child.get(0)!.data).toEqual({ sessionId: id, answerSeq, callId: "f", toolName: "research" });
    // No session for a call whose arguments are no task, nor for the answered one.
    expect((await store.list()).map((info) => info.sessionId).sort()).toEqual([id, turns[0]!.sessionId, turns[1]!.sessionId].sort());
    // Asked again (a recovered engine): the same turns, the sessions reopened, not doubled.
    expect(await subagentTurns(log, tools)).toEqual(turns);
    expect((await childEvents(turns[0]!.sessionId)).length).toBe(1);
    await log.close();
  });

  it("leaves out a call whose child already ended its turn, and starts a child's open turn where it stands", async () => {
    const { id, log, tools } = await parent([call("a", "research", '{"task":"one"}'), call("b", "research", '{"task":"two"}')]);
    const [first, second] = await subagentTurns(log, tools);
    for (const [turn, ended] of [[first!, true], [second!, false]] as const) {
      const child = await store.open(turn.sessionId, { registry: createAgentRegistry() });
      await child.log.append([
        turnStartEvent.input({ turn: 0 }),
        stepStartEvent.input({ turn: 0, step: 0 }),
        systemMessageEvent.input({ content: "You research.", source: "system-prompt" }),
        userMessageEvent.input({ content: text(turn.task), source: "user" }),
        requestHeaderEvent.input({ reason: "initial", header: { config } }),
        requestDispatchEvent.input({ turn: 0, step: 0 }),
        ...(ended ? [assistantMessageEvent.input({ content: text("found"), source: "model" }), stepEndEvent.input({ turn: 0, step: 0, reason: "completed" }), turnEndEvent.input({ turn: 0, reason: "completed" })] : []),
      ]);
      await child.log.close();
    }
    expect(await subagentTurns(log, tools)).toEqual([{ ...second!, head: 7 }]);
    expect(second!.sessionId).toBe(await subagentSessionId(id, 6, "b"));
    await log.close();
  });

  it("lists nothing when no answer's calls are open", async () => {
    const { log, tools } = await parent([call("a", "research", '{"task":"one"}')], ["a"]);
    expect(await subagentTurns(log, tools)).toEqual([]);
    await log.close();
    const { log: fresh } = await store.create({ registry: createAgentRegistry() });
    expect(await subagentTurns(fresh, tools)).toEqual([]);
    await fresh.close();
  });
});

describe("isSubagentTool", () => {
  it("tells a subagent tool, which carries its agent, from any other tool", () => {
    const options = { name: "research", description: "Researches.", store, parentSessionId: "p", runtime: new LlmRuntime({ adapters: [] }), config, systemPrompt: "You research." };
    const tool = subagentTool(options);
    expect(isSubagentTool(tool)).toBe(true);
    expect(tool.subagent).toBe(options);
    expect(isSubagentTool(defineTool({ name: "look", description: "Looks.", parameters: z.object({}), execute: () => "seen" }))).toBe(false);
    expect(isSubagentTool({ ...tool, subagent: undefined } as never)).toBe(false);
    expect(isSubagentTool(undefined)).toBe(false);
  });
});
