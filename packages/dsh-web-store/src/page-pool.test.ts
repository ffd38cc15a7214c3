import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore } from "dsh-attachments";
import { LlmRuntime } from "dsh-llm";
import { JsonlStore } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { PAGE_EVENTS, WebError, type SessionListItem, type SessionView } from "dsh-web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PagePool } from "./page-pool.js";
import { listItem, sessionPage } from "./store-pages.js";

let dir: string;
let id: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-pages-"));
  const sim = await startSimulator({ scenario: { responses: [{ text: "First." }, { text: "Second." }, { text: "Third." }] } });
  try {
    const { info, log } = await new JsonlStore(join(dir, "sessions")).create({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "You are brief." });
    for (const prompt of ["What is here?", "And there?", "Anything else?"]) await agent.run(prompt);
    await log.close();
    id = info.sessionId;
  } finally {
    await sim.close();
  }
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pool whose children open the JSONL store and objects under the test's directory. */
const poolOf = (size?: number) => new PagePool({ module: new URL("./test-support/page-store.ts", import.meta.url), input: { dir }, ...(size === undefined ? {} : { size }) });
const attachments = () => new FsAttachmentStore(join(dir, "objects"));

/** The pids of this process's page workers. */
function pageBuilders(): number[] {
  return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes("page-worker"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe("PagePool", () => {
  it("builds in child processes the same pages and list rows as this process would, and stops its children", async () => {
    const pool = poolOf();
    const store = new JsonlStore(join(dir, "sessions"));
    try {
      const [summary] = await store.list();
      const first = { kind: "session", sessionId: id, pageEvents: 10, at: { page: 1 } } as const;
      const [page, row] = await Promise.all([pool.run<SessionView>(first), pool.run<SessionListItem>({ kind: "list-item", summary: summary! })]);
      expect(page.pages.length).toBeGreaterThan(1);
      expect(page.timeline[0]!.seq).toBe(0);
      expect(page).toEqual(JSON.parse(JSON.stringify(await sessionPage(store, id, { attachments: attachments(), pageEvents: first.pageEvents }, first.at))));
      expect(row).toEqual(JSON.parse(JSON.stringify(await listItem(store, summary!))));
      // Another page of the same session, measured once in the child, is the page this process builds from scratch.
      for (const at of [{ page: 2 }, { seq: page.pages.at(-1)!.to }]) {
        expect(await pool.run<SessionView>({ ...first, at })).toEqual(JSON.parse(JSON.stringify(await sessionPage(store, id, { attachments: attachments(), pageEvents: first.pageEvents }, at))));
      }
      // A job after the first ones reuses a child.
      expect((await pool.run<SessionView>({ kind: "session", sessionId: id, pageEvents: PAGE_EVENTS })).session.id).toBe(id);
    } finally {
      await pool.close();
      await store.close();
    }
  }, 60_000);

  it("answers an unknown session with the web's 404, and any other failure with its message", async () => {
    const pool = poolOf(1);
    try {
      const missing = await pool.run({ kind: "session", sessionId: "no-such-session", pageEvents: PAGE_EVENTS }).catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(WebError);
      expect(missing).toMatchObject({ code: "WEB_NOT_FOUND", message: "no session no-such-session in this store", status: 404 });
      await expect(pool.run({ kind: "session", sessionId: "../escape", pageEvents: PAGE_EVENTS })).rejects.toThrow('"../escape" is not a session id');
      await expect(pool.run({ kind: "session", sessionId: id, pageEvents: PAGE_EVENTS, at: { page: 2 } })).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: "no page 2: the session has 1" });
    } finally {
      await pool.close();
    }
  }, 60_000);
});

describe("a session's pages", () => {
  it("go to the child that built its last page when that child is free, which keeps the session measured", async () => {
    const pool = poolOf(2);
    const page = (sessionId: string) => pool.run<SessionView>({ kind: "session", sessionId, pageEvents: PAGE_EVENTS }).then((view) => view.session.id, (error: Error) => error.message);
    let stopped: number | undefined;
    try {
      // Two at once start two children: the first (the lower pid) builds this session, the second a missing one.
      await Promise.all([page(id), page("no-such-session")]);
      const children = pageBuilders().sort((x, y) => x - y);
      expect(children).toHaveLength(2);
      // With the first child stopped, the missing session's page is still answered: it goes to the second.
      stopped = children[0]!;
      process.kill(stopped, "SIGSTOP");
      const answered = await Promise.race([page("no-such-session"), new Promise((resolve) => setTimeout(resolve, 20_000, "not answered: it went to the stopped child"))]);
      expect(answered).toBe("no session no-such-session in this store");
      process.kill(stopped, "SIGCONT");
      stopped = undefined;
      expect(await page(id)).toBe(id);
    } finally {
      if (stopped !== undefined) process.kill(stopped, "SIGCONT");
      await pool.close();
    }
  }, 60_000);
});

describe("a page worker that dies", () => {
  it("is replaced: the next page is built by a new child", async () => {
    const pool = poolOf(1);
    try {
      await pool.run({ kind: "session", sessionId: id, pageEvents: PAGE_EVENTS });
      const children = pageBuilders();
      expect(children).toHaveLength(1);
      process.kill(children[0]!, "SIGKILL");
      while (execFileSync("ps", ["-o", "pid=", "--ppid", String(process.pid)], { encoding: "utf8" }).includes(String(children[0]))) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect((await pool.run<SessionView>({ kind: "session", sessionId: id, pageEvents: PAGE_EVENTS })).session.id).toBe(id);
    } finally {
      await pool.close();
    }
  }, 60_000);
});
