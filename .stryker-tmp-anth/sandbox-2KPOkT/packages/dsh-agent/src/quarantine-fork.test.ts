import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryAttachmentStore, putImage, readImage } from "dsh-attachments";
import { requestHeaderEvent } from "dsh-header";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog, EventLog, readJsonlLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "./agent.js";
import { attachmentQuarantineEvent, turnStartEvent } from "./events.js";
import { createAgentRegistry } from "./register.js";
import { forkPoints, forkSeed } from "./fork.js";
import { quarantineProposal } from "./maintenance.js";
import { reconstructRequests } from "./reconstruct.js";
import { defineTool } from "./tools.js";
import { baseConfig, body, harness } from "./test-support/harness.js";

/** An adapter that, like a real one, reads every image through the store while serializing. */
const imageReading: LlmAdapter = {
  provider: "scripted",
  async *stream(request, context) {
    for (const message of request.messages) {
      if (message.role !== "user") continue;
      for (const block of message.content) if (block.type === "image") await readImage(context.attachments!, block.image);
    }
    yield { type: "text-delta", text: "seen" };
    yield { type: "finish", reason: "stop" };
  },
};

describe("attachment quarantine", () => {
  it("fails the request loudly, logs a proposal, and recovers only through a logged replace", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(3, 3));
    const log = new EventLog({ registry: createAgentRegistry() });
    const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [imageReading], attachments: new MemoryAttachmentStore() }), config: baseConfig });

    await expect(agent.run([{ type: "text", text: "look" }, { type: "image", image }])).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
    const proposal = log.slice().find((event) => attachmentQuarantineEvent.is(event));
    const imageNode = log.slice().find((event) => event.type === "user/message")!.seq;
    expect(proposal?.data).toMatchObject({ digest: image.digest, code: "ATTACHMENT_MISSING", nodes: [imageNode] });
    expect(log.slice().slice(-2).map((event) => event.type)).toEqual(["step/end", "turn/end"]);

    expect(await agent.acceptQuarantine(image.digest)).toBe(1);
    await expect(agent.run("and now?")).resolves.toMatchObject({ reason: "completed" });
    const rebuilt = await reconstructRequests(log);
    expect(JSON.stringify(rebuilt.at(-1)!.request.messages)).toContain(`[image ${image.digest} unavailable: quarantined]`);
    // The failed request still references the image exactly: reconstruction with the object present works,
    // without it fails loudly; quarantine never rewrote history.
    expect(JSON.stringify(rebuilt[0]!.request.messages)).toContain(image.digest);
    await expect(reconstructRequests(log, { attachments: store })).resolves.toHaveLength(2);
    await expect(reconstructRequests(log, { attachments: new MemoryAttachmentStore() })).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
  });
});

describe("accepting a quarantine", () => {
  it("replaces the missing image in user messages and tool results alike, leaving other parts and images as they are", async () => {
    const store = new MemoryAttachmentStore();
    const missing = await putImage(new MemoryAttachmentStore(), makePng(2, 2));
    const kept = await putImage(store, makePng(4, 4));
    const screenshot = defineTool({
      name: "screenshot",
      description: "Take a screenshot",
      parameters: z.object({}),
      execute: () => ({ content: [{ type: "text", text: "here:" }, { type: "image", image: missing }] }),
    });
    const { agent, log } = harness((_request, index) => (index === 0 ? { toolCalls: [{ name: "screenshot", arguments: "{}" }] } : { text: "ok" }), {
      tools: [screenshot],
    });
    await agent.run([{ type: "text", text: "compare" }, { type: "image", image: missing }, { type: "image", image: kept }]);
    expect(await agent.acceptQuarantine("sha256:nothing-references-this")).toBe(0);
    expect(await agent.acceptQuarantine(missing.digest)).toBe(2);
    const messages = agent.surface.deriveMessages();
    const placeholder = { type: "text", text: `[image ${missing.digest} unavailable: quarantined]` };
    expect(messages.find((message) => message.role === "user")!.content).toEqual([{ type: "text", text: "compare" }, placeholder, { type: "image", image: kept }]);
    const tool = messages.find((message) => message.role === "tool")!;
    expect(tool).toMatchObject({ callId: "call-0-0", toolName: "screenshot", isError: false, content: [{ type: "text", text: "here:" }, placeholder] });
    // Both nodes were replaced in one batch with consecutive generations; a second accept finds nothing.
    const replaces = log.slice().filter((event) => (event.data as { replaces?: unknown }).replaces !== undefined);
    expect(replaces.map((event) => event.seq)).toEqual([replaces[0]!.seq, replaces[0]!.seq + 1]);
    expect(await agent.acceptQuarantine(missing.digest)).toBe(0);
  });

  it("proposes nothing for a failure that is not about an attachment", async () => {
    expect(quarantineProposal(harness(() => ({ text: "ok" })).agent.surface, new Error("other"))).toEqual([]);
  });
});

describe("fork", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "dsh-fork-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("seeds a new log with a closed-turn prefix; an override shows as drift in its first resume snapshot", async () => {
    const parentPath = join(dir, "parent.jsonl");
    const parentLog = await createJsonlLog(parentPath, { registry: createAgentRegistry(), sessionId: "parent" });
    const parent = harness(() => ({ text: "ok" }), { log: parentLog.log });
    await parent.agent.run("one");
    await parent.agent.run("two");
    await parentLog.log.close();

    const events = (await readJsonlLog(parentPath, createAgentRegistry())).log.slice();
    const [firstTurnEnd] = forkPoints(events);
    expect(() => forkSeed(events, firstTurnEnd! - 1)).toThrowError(/inside turn 0; fork at the end of a turn/);
    const seed = forkSeed(events, firstTurnEnd!);

    const childPath = join(dir, "child.jsonl");
    const child = await createJsonlLog(childPath, { registry: createAgentRegistry(), fork: { parentSessionId: "parent", seed } });
    expect(child.header.parent).toEqual({ sessionId: "parent", seedLength: firstTurnEnd! + 1 });
    const forked = harness(() => ({ text: "forked" }), { log: child.log, config: { ...baseConfig, model: "model-b" } });
    await forked.agent.run("two, differently");
    await child.log.close();

    const childEvents = (await readJsonlLog(childPath, createAgentRegistry())).log.slice();
    const snapshots = childEvents.filter((event) => requestHeaderEvent.is(event)).map((event) => event.data as { reason: string; header: { config: { model: string } } });
    expect(snapshots.map((snapshot) => [snapshot.reason, snapshot.header.config.model])).toEqual([
      ["initial", "model-a"],
      ["resume", "model-b"],
    ]);
    const rebuilt = await reconstructRequests(childEvents);
    expect(rebuilt.map((r) => body(r.request))).toEqual([...parent.adapter.received.slice(0, 1), ...forked.adapter.received].map(body));
  });

  it("refuses a seq outside the log", () => {
    expect(() => forkSeed([], 0)).toThrowError(expect.objectContaining({ code: "AGENT_INVALID_FORK", message: "seq 0 is not in the log (it has 0 events)" }));
  });

  it("names the turn a refused seq is inside, and the nearest fork point: the earlier one, else the end of the first turn", async () => {
    const { agent, log } = harness(() => ({ text: "ok" }));
    await agent.run("one");
    await agent.run("two");
    const events = log.slice();
    const [first, second] = forkPoints(events);
    expect(forkPoints(events)).toEqual([first, second]);
    expect(events[first!]!.type).toBe("turn/end");
    expect(() => forkSeed(events, 0)).toThrowError(expect.objectContaining({ code: "AGENT_INVALID_FORK", message: `seq 0 is inside turn 0; fork at the end of a turn, such as seq ${first}` }));
    const open = harness(() => ({ text: "ok" }));
    await open.log.append(turnStartEvent.input({ turn: 0 }));
    expect(() => forkSeed(open.log.slice(), 0)).toThrowError("seq 0 is inside turn 0; fork at the end of a turn");
    expect(() => forkSeed(events, second! - 1)).toThrowError(`seq ${second! - 1} is inside turn 1; fork at the end of a turn, such as seq ${first}`);
    expect(forkSeed(events, first!)).toEqual(events.slice(0, first! + 1));
    expect(() => forkSeed(events, events.length)).toThrowError(`seq ${events.length} is not in the log (it has ${events.length} events)`);
    expect(() => forkSeed(events, 1.5)).toThrowError(expect.objectContaining({ code: "AGENT_INVALID_FORK" }));
  });
});
