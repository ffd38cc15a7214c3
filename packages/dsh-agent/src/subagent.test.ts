import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore, type LogEvent } from "dsh-log";
import { ChatCompletionsAdapter, serializeRequest } from "dsh-openai-compatible";
import { startSimulator, type Simulator } from "dsh-simulator";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "./agent.js";
import type { ToolEvent } from "./listeners.js";
import { reconstructRequests } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { childLinks, linkProblems, verifySessionTree } from "./session-tree.js";
import { sessionParentEvent } from "./session-parent.js";
import { subagentTool } from "./subagent.js";
import { reconstructTree } from "./tree-requests.js";
import { EventLog, FileWitness, LogError, defineEvent, readWitnessFile, verifyLines } from "dsh-log";
import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:net";
import { defineTool } from "./tools.js";
import { z } from "zod";
import { chainHeadAt, subagentSessionId } from "./subagent.js";

let dir: string;
let sim: Simulator;
let store: JsonlStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-subagents-"));
  store = new JsonlStore(dir);
  // The parent delegates two tasks in one answer; each child answers once; the parent sums up.
  const research = (task: string) => ({ name: "research", arguments: { task } });
  sim = await startSimulator({ scenario: { responses: [{ toolCalls: [research("Find the capital of Japan."), research("Find the capital of France.")] }, { text: "A child's answer." }, { text: "A child's answer." }, { text: "Tokyo and Paris." }] } });
});
afterEach(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

const config = { provider: "deepseek", model: "deepseek-v4-flash" } as const;
const runtime = () => new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });

/** A parent session that hands two tasks, in one answer, to a research subagent. */
async function parentWithChildren() {
  const { info, log } = await store.create({ registry: createAgentRegistry() });
  const research = subagentTool({ name: "research", description: "Hands a research task to a subagent.", store, parentSessionId: info.sessionId, runtime: runtime(), config, systemPrompt: "You research one question." });
  const heard: ToolEvent[] = [];
  const turn = await new Agent({ log, runtime: runtime(), config, systemPrompt: "You delegate.", tools: [research] }).run("Capitals?", { onToolEvent: (event) => heard.push(event) });
  const events = log.slice();
  await log.close();
  return { id: info.sessionId, events, turn, heard };
}

const lines = async (id: string) => (await readFile(join(dir, `${id}.jsonl`), "utf8")).split("\n");

describe("subagentTool", () => {
  it("runs each call in a child session of the parent's store, linked both ways, and every request of the tree rebuilds to the bytes sent", async () => {
    const { id, events, turn, heard } = await parentWithChildren();
    expect(turn).toMatchObject({ reason: "completed", text: "Tokyo and Paris." });
    const answer = events.find((event) => event.type === "assistant/message")!;
    const links = childLinks(events);
    expect(links.map((link) => link.callId)).toEqual((answer.data as { content: { type: string; callId?: string }[] }).content.filter((block) => block.type === "tool-call").map((call) => call.callId));
    expect(new Set(links.map((link) => link.child.sessionId)).size).toBe(2);
    const results = events.filter((event) => event.type === "tool/result").map((event) => event.data as { content: { text: string }[]; isError: boolean });
    expect(results.map((result) => [result.content[0]!.text, result.isError])).toEqual([["A child's answer.", false], ["A child's answer.", false]]);
    // The child's answer streamed to the parent's listener as the call's progress.
    const progress = heard.filter((event) => event.type === "progress") as { callId: string; progress: number; message?: string }[];
    expect(progress.map((event) => event.message).join("")).toContain("A child's answer.");
    // Each call's progress counts the characters its subagent has answered so far.
    for (const callId of new Set(progress.map((event) => event.callId))) {
      const own = progress.filter((event) => event.callId === callId);
      expect(own.map((event) => event.progress)).toEqual(own.map((_, index) => own.slice(0, index + 1).reduce((sum, event) => sum + event.message!.length, 0)));
    }
    const bodies: string[] = [];
    for (const link of links) {
      const { log } = await store.read(link.child.sessionId, createAgentRegistry());
      const [first, ...rest] = log.slice();
      expect(first).toMatchObject({ seq: 0, type: "session/parent", data: { sessionId: id, answerSeq: answer.seq, callId: link.callId, toolName: "research" } });
      expect(rest.find((event) => event.type === "user/message")!.data).toMatchObject({ content: [{ type: "text", text: expect.stringMatching(/^Find the capital of (Japan|France)\.$/) }] });
      expect(log.length).toBe(link.child.events);
      for (const { request } of await reconstructRequests(log)) bodies.push(await serializeRequest(request, { dialect: "deepseek" }));
    }
    const { log: parent } = await store.read(id, createAgentRegistry());
    for (const { request } of await reconstructRequests(parent)) bodies.push(await serializeRequest(request, { dialect: "deepseek" }));
    expect(bodies.sort()).toEqual(sim.exchanges.map((exchange) => exchange.body).sort());
    // reconstructTree walks the same tree: the parent first, then each child it links.
    const tree = await reconstructTree(store, id);
    expect(tree.map((session) => [session.sessionId, session.parent?.seq])).toEqual([[id, undefined], ...links.map((link) => [link.child.sessionId, link.seq])]);
    const treeBodies = await Promise.all(tree.flatMap((session) => session.requests.map(({ request }) => serializeRequest(request, { dialect: "deepseek" }))));
    expect(treeBodies.sort()).toEqual(bodies);
    expect(await verifySessionTree(store, id)).toMatchObject({ intact: true, sessions: [{ sessionId: id }, { parent: { sessionId: id, seq: links[0]!.seq } }, { parent: { sessionId: id, seq: links[1]!.seq } }] });
  });

  it("fails the parent's tree when a child's log is edited after it returned, naming both sessions", async () => {
    const { id, events } = await parentWithChildren();
    const [link] = childLinks(events);
    const child = link!.child.sessionId;
    const text = await lines(child);
    const at = text.findIndex((line) => line.includes("user/message"));
    expect(at).toBeGreaterThan(1);
    text[at] = text[at]!.replace("Find the capital", "Find the largest city");
    await writeFile(join(dir, `${child}.jsonl`), text.join("\n"));
    const report = await verifySessionTree(store, id);
    expect(report.intact).toBe(false);
    expect(await linkProblems(store, id)).toEqual([report.sessions.find((session) => session.sessionId === child)]);
    expect(await linkProblems(store, child)).toEqual([]);
    expect(report.sessions.find((session) => session.sessionId === child)).toMatchObject({ parent: { sessionId: id, seq: link!.seq }, problem: `session ${id}'s result at seq ${link!.seq} links session ${child}, which no longer matches it: the chain head of its first ${link!.child.events} events differs from the one recorded (its log was changed)` });
    // The other child still holds.
    expect(report.sessions.filter((session) => session.problem === undefined)).toHaveLength(2);
  });

  it("checks a child's own chain past what its parent recorded", async () => {
    const { id, events } = await parentWithChildren();
    const [link] = childLinks(events);
    const child = link!.child.sessionId;
    const text = (await lines(child)).filter((line) => line !== "");
    const last = JSON.parse(text.at(-1)!) as { seq: number };
    await writeFile(join(dir, `${child}.jsonl`), `${[...text, text.at(-1)!.replace(`"seq":${last.seq},`, `"seq":${last.seq + 1},`)].join("\n")}\n`);
    const report = await verifySessionTree(store, id);
    expect(report.intact).toBe(false);
    expect(report.sessions.find((session) => session.sessionId === child)?.problem).toBe(`session ${child} (linked by session ${id} at seq ${link!.seq}) is broken: seq ${last.seq + 1} breaks the chain: its line or a line before it was changed, added or removed`);
  });

  it("names both sessions when a linked child is missing, or was rewritten whole with a chain of its own", async () => {
    const { id, events } = await parentWithChildren();
    const [first, second] = childLinks(events).map((link) => link.child.sessionId);
    await rm(join(dir, `${first}.jsonl`));
    const missing = await verifySessionTree(store, id);
    expect(missing.sessions.find((session) => session.sessionId === first)?.problem).toBe(`session ${id}'s result at seq ${childLinks(events)[0]!.seq} links session ${first}, which is not in the store`);
    // A child rewritten whole, its chain recomputed: its own chain holds, but not the head the parent recorded.
    const { log } = await store.read(second!, createAgentRegistry());
    const copied = log.slice().map((event): LogEvent => (event.type === "user/message" ? { ...event, data: { ...(event.data as object), content: [{ type: "text", text: "Something else." }] } } : event));
    await rm(join(dir, `${second}.jsonl`));
    const rewritten = await store.create({ registry: createAgentRegistry(), sessionId: second!, createdAt: JSON.parse((await lines(id))[0]!).createdAt, copy: { events: copied } });
    await rewritten.log.close();
    const changed = await verifySessionTree(store, id);
    expect(changed.intact).toBe(false);
    expect(changed.sessions.find((session) => session.sessionId === second)?.problem).toMatch(new RegExp(`^session ${id}'s result at seq \\d+ links session ${second}, which no longer matches it: the chain head of its first \\d+ events differs`));
  });
});

describe("a call run again", () => {
  const call = (answerSeq = 3) => ({ callId: "c", turn: 0, step: 0, index: 0, answerSeq, signal: new AbortController().signal });
  const research = (parentSessionId: string) => subagentTool({ name: "research", description: "d", store, parentSessionId, runtime: runtime(), config, systemPrompt: "s" });

  it("returns the answer its subagent already gave, from the same session, without a request", async () => {
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ text: "Once." }, { text: "Twice." }] } });
    const { info } = await store.create({ registry: createAgentRegistry() });
    const first = await research(info.sessionId).invoke('{"task":"t"}', call());
    const again = await research(info.sessionId).invoke('{"task":"t"}', call());
    expect(again).toEqual(first);
    expect(first).toMatchObject({ isError: false, content: [{ text: "Once." }], child: { sessionId: await subagentSessionId(info.sessionId, 3, "c") } });
    expect(sim.exchanges).toHaveLength(1);
    // Another answer's call of the same id is another call: another session.
    const other = await research(info.sessionId).invoke('{"task":"t"}', call(9));
    expect(other).toMatchObject({ content: [{ text: "Twice." }], child: { sessionId: await subagentSessionId(info.sessionId, 9, "c") } });
  });

  it("continues a subagent whose turn a crash left open: the open turn is closed as interrupted and the task run again", async () => {
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ text: "Done now." }] } });
    const { info } = await store.create({ registry: createAgentRegistry() });
    const parent = { sessionId: info.sessionId, answerSeq: 3, callId: "c", toolName: "research" };
    const crashed = await store.create({ registry: createAgentRegistry(), sessionId: await subagentSessionId(info.sessionId, 3, "c") });
    await crashed.log.append([sessionParentEvent.input(parent), { type: "turn/start", data: { turn: 0 } }]);
    await crashed.log.close();
    const outcome = await research(info.sessionId).invoke('{"task":"t"}', call());
    expect(outcome).toMatchObject({ isError: false, content: [{ text: "Done now." }] });
    const { log } = await store.read(crashed.info.sessionId, createAgentRegistry());
    expect(log.slice().filter((event) => event.type === "turn/end").map((event) => (event.data as { reason: string }).reason)).toEqual(["interrupted", "completed"]);
    expect(outcome.child).toMatchObject({ sessionId: crashed.info.sessionId, events: log.length });
  });

  it("takes up a session a crash left empty or without a turn, and reports a turn that ended without an answer as it ended", async () => {
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ text: "From empty." }, { text: "From no turn." }] } });
    const { info } = await store.create({ registry: createAgentRegistry() });
    const parent = (answerSeq: number) => ({ sessionId: info.sessionId, answerSeq, callId: "c", toolName: "research" });
    // Created, but the crash came before its first event.
    await (await store.create({ registry: createAgentRegistry(), sessionId: await subagentSessionId(info.sessionId, 3, "c") })).log.close();
    expect(await research(info.sessionId).invoke('{"task":"t"}', call(3))).toMatchObject({ isError: false, content: [{ text: "From empty." }] });
    const { log: taken } = await store.read(await subagentSessionId(info.sessionId, 3, "c"), createAgentRegistry());
    expect(taken.get(0)).toMatchObject({ type: "session/parent", data: parent(3) });
    // Its first event written, but no turn started.
    const bare = await store.create({ registry: createAgentRegistry(), sessionId: await subagentSessionId(info.sessionId, 5, "c") });
    await bare.log.append(sessionParentEvent.input(parent(5)));
    await bare.log.close();
    expect(await research(info.sessionId).invoke('{"task":"t"}', call(5))).toMatchObject({ isError: false, content: [{ text: "From no turn." }] });
    // A turn that ended before it answered (the crash came after it was closed): reported, not run again.
    const ended = await store.create({ registry: createAgentRegistry(), sessionId: await subagentSessionId(info.sessionId, 7, "c") });
    await ended.log.append([sessionParentEvent.input(parent(7)), { type: "turn/start", data: { turn: 0 } }, { type: "turn/end", data: { turn: 0, reason: "interrupted" } }]);
    await ended.log.close();
    expect(await research(info.sessionId).invoke('{"task":"t"}', call(7))).toMatchObject({ isError: true, content: [{ text: "(the subagent ended its turn interrupted without an answer)" }] });
    expect(sim.exchanges).toHaveLength(2);
  });

  it("derives its session id from the parent, the answer and the call, shaped as a UUID", async () => {
    const id = await subagentSessionId("p", 3, "c");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const { createHash } = await import("node:crypto");
    expect(id.replaceAll("-", "")).toBe(createHash("sha256").update("p\n3\nc").digest("hex").slice(0, 32));
    expect(new Set([id, await subagentSessionId("p", 4, "c"), await subagentSessionId("p", 3, "d"), await subagentSessionId("q", 3, "c")]).size).toBe(4);
  });

  it("refuses a session at its id that another call made", async () => {
    const { info } = await store.create({ registry: createAgentRegistry() });
    const squatter = await store.create({ registry: createAgentRegistry(), sessionId: await subagentSessionId(info.sessionId, 3, "c") });
    await squatter.log.append(sessionParentEvent.input({ sessionId: info.sessionId, answerSeq: 3, callId: "another", toolName: "research" }));
    await squatter.log.close();
    const outcome = await research(info.sessionId).invoke('{"task":"t"}', call());
    expect(outcome).toMatchObject({ isError: true, content: [{ text: `Error [TOOL_FAILED]: session ${squatter.info.sessionId} is not this call's subagent session: its first event does not name call c of session ${info.sessionId}` }] });
    expect(sim.exchanges).toHaveLength(0);
  });

  it("never lets two runs of one call write its session at once", async () => {
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ text: "One." }, { text: "Two." }] } });
    const { info } = await store.create({ registry: createAgentRegistry() });
    const outcomes = await Promise.all([research(info.sessionId).invoke('{"task":"t"}', call()), research(info.sessionId).invoke('{"task":"t"}', call())]);
    const { log } = await store.read(await subagentSessionId(info.sessionId, 3, "c"), createAgentRegistry());
    expect(log.slice().filter((event) => event.type === "turn/start")).toHaveLength(1);
    expect(outcomes.filter((outcome) => !outcome.isError).map((outcome) => outcome.content)).toContainEqual([{ type: "text", text: "One." }]);
    for (const outcome of outcomes.filter((outcome) => outcome.isError)) expect(JSON.stringify(outcome.content)).toMatch(/^\[{"type":"text","text":"Error \[TOOL_FAILED\]: .* is open for writing by process \d+"}\]$/);
  });
});

describe("session/parent", () => {
  it("is a child session's first event only", async () => {
    const log = new EventLog({ registry: createAgentRegistry() });
    const parent = { sessionId: "p", answerSeq: 3, callId: "c", toolName: "research" };
    await log.append(sessionParentEvent.input(parent));
    await expect(log.append(sessionParentEvent.input(parent))).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION", message: expect.stringContaining("session/parent at seq 1: a child session names its parent in its first event only") });
  });

  it("runs for a caller that hears no progress", async () => {
    const { info } = await store.create({ registry: createAgentRegistry() });
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ text: "Quietly." }] } });
    const quiet = subagentTool({ name: "research", description: "d", store, parentSessionId: info.sessionId, runtime: runtime(), config, systemPrompt: "s" });
    const outcome = await quiet.invoke('{"task":"t"}', { callId: "c", turn: 0, step: 0, index: 0, answerSeq: 3, signal: new AbortController().signal });
    expect(outcome).toMatchObject({ isError: false, content: [{ type: "text", text: "Quietly." }], child: { events: expect.any(Number) } });
  });

  it("is not written by a subagent called outside a turn, which cannot say what called it", async () => {
    const { info } = await store.create({ registry: createAgentRegistry() });
    const tool = subagentTool({ name: "research", description: "d", store, parentSessionId: info.sessionId, runtime: runtime(), config, systemPrompt: "s" });
    const outcome = await tool.invoke('{"task":"t"}', { callId: "c", turn: 0, step: 0, index: 0, signal: new AbortController().signal });
    expect(outcome).toMatchObject({ isError: true, content: [{ type: "text", text: "Error [TOOL_FAILED]: a subagent runs inside an agent's turn, which tells it the answer that called it" }] });
    expect((await store.list()).length).toBe(1);
  });
});

describe("a subagent's own settings", () => {
  it("runs with its own tools, step limit and signing key, and a turn cut short is an error result with the session still linked", async () => {
    await sim.close();
    sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "research", arguments: { task: "Look it up." } }] }, { toolCalls: [{ name: "lookup", arguments: {} }] }, { text: "Gave up." }] } });
    const keys = generateKeyPairSync("ed25519");
    const witness = new FileWitness(join(dir, "witness.jsonl"));
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    const looked: string[] = [];
    const lookup = defineTool({ name: "lookup", description: "Looks up.", parameters: z.object({}), execute: (_args, context) => (looked.push(context.callId), "found") });
    const research = subagentTool({ name: "research", description: "d", store, parentSessionId: info.sessionId, runtime: runtime(), config, systemPrompt: "s", tools: [lookup], maxSteps: 1, signing: { key: keys.privateKey, witness } });
    await new Agent({ log, runtime: runtime(), config, systemPrompt: "p", tools: [research] }).run("Go.");
    await log.close();
    const [link] = childLinks(log.slice());
    const result = log.slice().find((event) => event.type === "tool/result")!.data as { content: { text: string }[]; isError: boolean };
    expect(result).toMatchObject({ isError: true, content: [{ text: "(the subagent ended its turn max-steps without an answer)" }] });
    expect(looked).toHaveLength(1);
    const heads = await readWitnessFile(join(dir, "witness.jsonl"));
    expect(heads.filter((head) => head.sessionId === link!.child.sessionId).at(-1)).toMatchObject({ events: link!.child.events, head: link!.child.head });
    await witness.close();
    // The child's chain is covered to its end by the heads it signed; the parent, unsigned, is not.
    expect((await verifyLines(await store.readLines(link!.child.sessionId), { heads, publicKey: keys.publicKey })).status).toBe("intact");
    expect((await verifySessionTree(store, info.sessionId, { heads, publicKey: keys.publicKey })).sessions).toEqual([expect.objectContaining({ sessionId: info.sessionId, report: expect.objectContaining({ status: "unwitnessed" }) })]);
  });

  it("reports a subagent whose provider cannot be reached as a failed call, its session linked", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const { info, log } = await store.create({ registry: createAgentRegistry() });
    const unreachable = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: `http://127.0.0.1:${port}` })] });
    const research = subagentTool({ name: "research", description: "d", store, parentSessionId: info.sessionId, runtime: unreachable, config, systemPrompt: "s" });
    await new Agent({ log, runtime: runtime(), config, systemPrompt: "p", tools: [research] }).run("Capitals?");
    await log.close();
    const result = log.slice().find((event) => event.type === "tool/result")!.data as { content: { text: string }[]; isError: boolean; child: { sessionId: string } };
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^the subagent failed: /) }] });
    expect((await verifySessionTree(store, info.sessionId)).intact).toBe(true);
    const { log: child } = await store.read(result.child.sessionId, createAgentRegistry());
    expect(child.slice().map((event) => event.type)).toContain("turn/end");
  });
});

describe("links that do not hold", () => {
  it("names a child whose first event does not name the call that linked it, and a parent whose own chain is broken", async () => {
    const { id, events } = await parentWithChildren();
    const links = childLinks(events);
    const rewrite = async (sessionId: string, change: (events: LogEvent[]) => LogEvent[]) => {
      const { info, log } = await store.read(sessionId, createAgentRegistry());
      const copied = change(log.slice());
      await rm(join(dir, `${sessionId}.jsonl`));
      await (await store.create({ registry: createAgentRegistry(), sessionId, createdAt: info.createdAt, copy: { events: copied.map((event, seq) => ({ ...event, seq })) } })).log.close();
    };
    const otherParent = (events: LogEvent[]) => events.map((event) => (event.seq === 0 ? { ...event, data: { ...(event.data as object), sessionId: "someone-else" } } : event));
    const otherCall = (events: LogEvent[]) => events.map((event) => (event.seq === 0 ? { ...event, data: { ...(event.data as object), callId: "another-call" } } : event));
    const emptied = () => [];
    for (const [change, link] of [[otherParent, links[0]!], [otherCall, links[1]!], [emptied, links[0]!]] as const) {
      await rewrite(link.child.sessionId, change);
      const problem = (await verifySessionTree(store, id)).sessions.find((session) => session.sessionId === link.child.sessionId)?.problem;
      expect(problem).toBe(`session ${id}'s result at seq ${link.seq} links session ${link.child.sessionId}, whose first event does not name that call (${link.callId}) of session ${id} as its parent`);
    }
    const text = await lines(id);
    const at = text.findIndex((line) => line.includes('"type":"turn/start"'));
    expect(at).toBeGreaterThan(0);
    await writeFile(join(dir, `${id}.jsonl`), text.map((line, index) => (index === at ? line.replace('"turn":0', '"turn": 0') : line)).join("\n"));
    const broken = await verifySessionTree(store, id);
    expect(broken).toEqual({ intact: false, sessions: [{ sessionId: id, report: expect.objectContaining({ status: "broken" }), problem: expect.stringMatching(new RegExp(`^session ${id} is broken: seq \\d+ breaks the chain`)) }] });
  });

  it("takes no other event for a link, however its line mentions a child", async () => {
    const note = defineEvent("note/added", z.object({ callId: z.string(), child: z.unknown() }));
    const { info, log } = await store.create({ registry: createAgentRegistry().define(note) });
    const child = { sessionId: "kid", events: 3, head: "b".repeat(64) };
    await log.append(note.input({ callId: "c", child }));
    await log.close();
    expect(await verifySessionTree(store, info.sessionId)).toMatchObject({ intact: true, sessions: [{ sessionId: info.sessionId }] });
  });

  it("passes on a store's failure other than a missing session", async () => {
    const { id, events } = await parentWithChildren();
    const [link] = childLinks(events);
    const failing = new Proxy(store, {
      get(target, name) {
        if (name === "readLines") return (sessionId: string) => (sessionId === link!.child.sessionId ? Promise.reject(new LogError("LOG_CORRUPT", "line 2 is not JSON")) : target.readLines(sessionId));
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    await expect(verifySessionTree(failing, id)).rejects.toMatchObject({ code: "LOG_CORRUPT" });
  });

  it("finds no link in events that are not tool results carrying a child", () => {
    const child = { sessionId: "kid", events: 3, head: "b".repeat(64) };
    const events: LogEvent[] = [
      { seq: 0, type: "tool/result", time: 1, data: { callId: "a", toolName: "t", content: [], isError: false, source: "tool" } },
      { seq: 1, type: "note/added", time: 1, data: { callId: "b", child } },
      { seq: 2, type: "tool/result", time: 1, data: { callId: "c", toolName: "t", content: [], isError: false, source: "tool", child } },
    ];
    expect(childLinks(events)).toEqual([{ seq: 2, callId: "c", child }]);
  });
});

describe("chainHeadAt", () => {
  it("is the chain's head over the first events, the identity's for none, and nothing past the end", async () => {
    const { id, events } = await parentWithChildren();
    const report = await verifySessionTree(store, id);
    expect(await chainHeadAt(await store.readLines(id), events.length)).toBe(report.sessions[0]!.report!.head);
    const first = await chainHeadAt(await store.readLines(id), 1);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(await chainHeadAt(await store.readLines(id), 0)).toMatch(/^[0-9a-f]{64}$/);
    expect(await chainHeadAt(await store.readLines(id), 0)).not.toBe(first);
    expect(await chainHeadAt(await store.readLines(id), events.length + 1)).toBeUndefined();
    expect(await chainHeadAt({ ...(await store.readLines(id)), chained: false }, 1)).toBeUndefined();
  });
});
