import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { requestHeaderEvent } from "dsh-header";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator, type Simulator } from "dsh-simulator";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "./agent.js";
import { requestDispatchEvent, stepEndEvent, stepStartEvent, turnEndEvent, turnStartEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { verifySessionTree } from "./session-tree.js";
import { subagentTool } from "./subagent.js";
import { subagentTurns } from "./subagent-turns.js";
import { defineTool } from "./tools.js";

let dir: string;
let store: JsonlStore;
let sim: Simulator;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-subagent-resume-"));
  store = new JsonlStore(dir);
  // The interrupted subagent's task run again, then the parent's next turn.
  sim = await startSimulator({ scenario: { responses: [{ text: "The second subagent found it." }, { text: "Both answered." }] } });
});
afterEach(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

const config = { provider: "deepseek", model: "deepseek-v4-flash" } as const;
const text = (value: string) => [{ type: "text" as const, text: value }];
const opened = (turn: number, task: string) => [
  turnStartEvent.input({ turn }),
  stepStartEvent.input({ turn, step: 0 }),
  systemMessageEvent.input({ content: "You research.", source: "system-prompt" }),
  userMessageEvent.input({ content: text(task), source: "user" }),
  requestHeaderEvent.input({ reason: "initial", header: { config } }),
  requestDispatchEvent.input({ turn, step: 0 }),
];

describe("a parent resumed after a crash inside its subagents' calls", () => {
  it("runs each open subagent call again in its own session: an answer already given comes back unsent, an interrupted turn's task runs again", async () => {
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    const research = subagentTool({ name: "research", description: "Researches.", store, parentSessionId: info.sessionId, runtime, config, systemPrompt: "You research." });
    const look = defineTool({ name: "look", description: "Looks.", parameters: z.object({}), execute: () => "seen" });
    // The crashed process: its answer called two subagents and another tool; no result was logged.
    const calls = [
      { type: "reasoning" as const, text: "Two questions: two subagents." },
      { type: "tool-call" as const, callId: "a", name: "research", arguments: '{"task":"first"}' },
      { type: "tool-call" as const, callId: "b", name: "research", arguments: '{"task":"second"}' },
      { type: "tool-call" as const, callId: "c", name: "look", arguments: "{}" },
      { type: "tool-call" as const, callId: "d", name: "research", arguments: '{"task":"third"}' },
    ];
    // A third subagent's call had returned and its result was logged.
    await log.append([...opened(0, "q"), assistantMessageEvent.input({ content: calls, source: "model" }), toolResultEvent.input({ callId: "d", toolName: "research", content: text("Third."), isError: false, source: "tool" })]);
    const [first, second] = await subagentTurns(log, [research, look]);
    // The first subagent had answered; the second was waiting for its model when the process died.
    const finished = await store.open(first!.sessionId, { registry: createAgentRegistry() });
    await finished.log.append([...opened(0, "first"), assistantMessageEvent.input({ content: text("The first subagent found it."), source: "model" }), stepEndEvent.input({ turn: 0, step: 0, reason: "completed" }), turnEndEvent.input({ turn: 0, reason: "completed" })]);
    await finished.log.close();
    const waiting = await store.open(second!.sessionId, { registry: createAgentRegistry() });
    await waiting.log.append(opened(0, "second"));
    await waiting.log.close();

    const turn = await new Agent({ log, runtime, config, systemPrompt: "You delegate.", tools: [research, look] }).run("Go on.");
    expect(turn).toMatchObject({ reason: "completed", text: "Both answered." });
    const events = log.slice();
    const results = events.filter((event) => event.type === "tool/result").map((event) => event.data as { callId: string; source: string; isError: boolean; content: { text: string }[]; child?: { sessionId: string; events: number } });
    expect(results.map(({ callId, source, isError, content }) => ({ callId, source, isError, text: content[0]!.text }))).toEqual([
      { callId: "d", source: "tool", isError: false, text: "Third." },
      { callId: "a", source: "tool", isError: false, text: "The first subagent found it." },
      { callId: "b", source: "tool", isError: false, text: "The second subagent found it." },
      { callId: "c", source: "recovery", isError: true, text: "Error [TOOL_NOT_RUN]: not run: the session was interrupted before this call completed" },
    ]);
    expect(results.map((result) => result.child?.sessionId)).toEqual([undefined, first!.sessionId, second!.sessionId, undefined]);
    // The crashed turn still ends interrupted; the resumed one completes.
    expect(events.filter((event) => event.type === "turn/end").map((event) => (event.data as { reason: string }).reason)).toEqual(["interrupted", "completed"]);
    // Only the interrupted subagent and the parent's new turn reached the provider.
    expect(sim.exchanges).toHaveLength(2);
    expect(sim.exchanges[0]!.body).toContain("second");
    const again = (await store.read(second!.sessionId, createAgentRegistry())).log.slice();
    expect(again.filter((event) => event.type === "turn/end").map((event) => (event.data as { reason: string }).reason)).toEqual(["interrupted", "completed"]);
    expect(results[2]!.child!.events).toBe(again.length);
    await log.close();
    const tree = await verifySessionTree(store, info.sessionId);
    expect(tree.intact, tree.sessions.map((session) => session.problem).join("\n")).toBe(true);
    expect(tree.sessions).toHaveLength(3);
  });
});
