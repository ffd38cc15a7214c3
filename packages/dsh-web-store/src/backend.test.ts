import { appendFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry, forkSeed, reconstructRequests, sessionParentEvent } from "dsh-agent";
import { FsAttachmentStore, putImage } from "dsh-attachments";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator, type Simulator } from "dsh-simulator";
import { makePng } from "dsh-testkit";
import { wireBody } from "dsh-wire";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { storeBackend } from "./backend.js";
import { buildPage, type PageRequest } from "./page-jobs.js";

let dir: string;
let sim: Simulator;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-web-store-"));
  sim = await startSimulator({ scenario: { responses: Array.from({ length: 6 }, (_, i) => ({ text: `Answer ${i}.` })) } });
});
afterEach(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});

/** A store with one session of two turns, the first carrying an image; and the objects its images are in. */
async function recorded() {
  const store = new JsonlStore(join(dir, "sessions"));
  const attachments = new FsAttachmentStore(join(dir, "objects"));
  const image = await putImage(attachments, makePng(2, 2));
  const { info, log } = await store.create({ registry: createAgentRegistry() });
  const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })], attachments });
  const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "You are careful. ".repeat(40) });
  await agent.run([{ type: "text", text: "What is this?" }, { type: "image", image }]);
  await agent.run("And now?");
  await log.close();
  return { store, attachments, image, id: info.sessionId };
}

/** A fork of session `id` at the end of its first turn, in the same store. */
async function forkAtFirstTurn(store: JsonlStore, id: string) {
  const { log } = await store.read(id, createAgentRegistry());
  const end = log.slice().find((event) => event.type === "turn/end")!.seq;
  const fork = await store.create({ registry: createAgentRegistry(), copy: { events: forkSeed(log.slice(), end), parent: { sessionId: id, seedLength: end + 1 } } });
  await fork.log.close();
  return { fork, end };
}

describe("storeBackend", () => {
  it("serves each request's measured cache picture, its exact wire body when asked, and the session's verified images", async () => {
    const { store, attachments, image, id } = await recorded();
    const backend = storeBackend(store, { attachments });
    const page = await backend.loadSession(id);
    expect(page.requests.map((request) => request.tokens.cacheRead)).toEqual([0, expect.any(Number)]);
    expect(page.requests[1]!.tokens.cacheRead).toBeGreaterThan(0);
    expect(page.requests[0]!.images).toEqual([{ digest: image.digest, mediaType: "image/png", src: `/api/sessions/${id}/images/${encodeURIComponent(image.digest)}` }]);
    const { log } = await store.read(id, createAgentRegistry());
    const bodies = await Promise.all((await reconstructRequests(log)).map((request) => wireBody(request, attachments)));
    expect(await backend.requestWire!(id, 2)).toEqual({ wire: bodies[1], wireBytes: Buffer.byteLength(bodies[1]!) });
    expect(await backend.image(id, image.digest)).toEqual({ bytes: makePng(2, 2), mediaType: "image/png" });
    await expect(backend.image(id, "sha256:0")).rejects.toMatchObject({ code: "WEB_NOT_FOUND" });
    await expect(backend.loadSession("nope")).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: "no session nope in this store" });
    // Off unless given: the composer's turns and the what-if.
    expect(backend.continueSession).toBeUndefined();
    expect(backend.whatIf).toBeUndefined();
  });

  it("marks a fork whose parent is gone, and hands every page to a builder when given one", async () => {
    const { store, attachments, id } = await recorded();
    const { fork, end } = await forkAtFirstTurn(store, id);
    await rm(join(dir, "sessions", `${id}.jsonl`));
    const asked: PageRequest[] = [];
    const backend = storeBackend(store, { attachments, pageEvents: 7, builder: { run: async <T>(request: PageRequest) => (asked.push(request), (await buildPage(store, request, { attachments })) as T) } });
    const [item] = await backend.listSessions();
    expect(item).toMatchObject({ id: fork.info.sessionId, parent: { id, seedLength: end + 1, broken: `its parent ${id} is not in this store` } });
    expect((await backend.loadSession(fork.info.sessionId)).pages.length).toBeGreaterThan(1);
    expect(asked.map((request) => request.kind)).toEqual(["list-item", "session"]);
    expect(asked[1]).toMatchObject({ sessionId: fork.info.sessionId, pageEvents: 7 });
    // The list is built again only for a session that grew.
    await backend.listSessions();
    expect(asked).toHaveLength(2);
  });

  it("lists each subagent's session right under its parent's, a level deeper, whatever order the store lists them in", async () => {
    const store = new JsonlStore(join(dir, "tree"));
    const session = async (sessionId: string, createdAt: number, parent?: string) => {
      const { log } = await store.create({ registry: createAgentRegistry(), sessionId, createdAt });
      if (parent !== undefined) await log.append(sessionParentEvent.input({ sessionId: parent, answerSeq: 4, callId: `call-${sessionId}`, toolName: "research" }));
      await log.close();
    };
    await session("child", 1, "parent");
    await session("parent", 2);
    await session("other", 3);
    const items = await storeBackend(store).listSessions();
    expect(items.map(({ id, depth, subagentOf }) => ({ id, depth, subagentOf }))).toEqual([
      { id: "parent", depth: 0, subagentOf: undefined },
      { id: "child", depth: 1, subagentOf: { id: "parent", callId: "call-child" } },
      { id: "other", depth: 0, subagentOf: undefined },
    ]);
  });

  it("lists a damaged session with its problem beside the others, and passes the composer and the what-if through", async () => {
    const { store, attachments, id } = await recorded();
    const { fork, end } = await forkAtFirstTurn(store, id);
    const damaged = await store.create({ registry: createAgentRegistry() });
    await damaged.log.close();
    await appendFile(join(dir, "sessions", `${damaged.info.sessionId}.jsonl`), "not a line\n");
    const turns: string[] = [];
    const whatIf = async () => ({ change: "none", fork: 0, rows: [], totals: { recorded: null, whatIf: null }, delta: { cacheReadTokens: 0, inputTokens: 0, costUsd: null }, honesty: "" }) as never;
    const backend = storeBackend(store, { attachments, continueSession: async (session) => void turns.push(session), whatIf });
    const items = await backend.listSessions();
    expect(items.find((item) => item.id === id)).not.toHaveProperty("parent");
    // A fork whose parent is there carries its lineage unmarked.
    expect(items.find((item) => item.id === fork.info.sessionId)?.parent).toEqual({ id, seedLength: end + 1 });
    expect(items.find((item) => item.id === damaged.info.sessionId)?.problem).toMatch(/^cannot be read: LOG_CORRUPT: /);
    // Its page is the store's failure as it is, not a missing session.
    await expect(backend.loadSession(damaged.info.sessionId)).rejects.toMatchObject({ code: "LOG_CORRUPT" });
    await backend.continueSession!(id, { prompt: "hi" }, () => undefined);
    expect(turns).toEqual([id]);
    expect(backend.whatIf).toBe(whatIf);
    // Asked for its second page (of seven events each), and a request it does not have.
    expect((await storeBackend(store, { attachments, pageEvents: 7 }).loadSession(id, { page: 2 })).page).toBe(2);
    await expect(backend.requestWire!(id, 3)).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: `no request 3 in session ${id}` });
  });
});
