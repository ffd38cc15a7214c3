import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlStore } from "dsh-log";
import { PAGE_EVENTS, WebError, type SessionListItem, type SessionView } from "dsh-web";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PagePool } from "./page-pool.js";
import { runCli } from "./test-support/run-cli.js";
import { listItem, sessionPage } from "dsh-web-store";
import { attachmentStore } from "./session.js";

let dir: string;
let id: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-pages-"));
  const run = await runCli(["run", "What is here?"], { cwd: dir });
  expect(run.code, run.stderr).toBe(0);
  id = /dsh: log: .*\/([^/]+)\.jsonl\n/.exec(run.stderr)![1]!;
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pids of this process's page-builder children. */
function pageBuilders(): number[] {
  return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes("page-builder"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

describe("PagePool", () => {
  it("builds in child processes the same pages and list rows as this process would, and stops its children", async () => {
    const pool = new PagePool({ url: ".dsh/sessions", cwd: dir, objects: undefined });
    const store = new JsonlStore(join(dir, ".dsh", "sessions"));
    try {
      const [summary] = await store.list();
      const first = { kind: "session", sessionId: id, pageEvents: 10, at: { page: 1 } } as const;
      const [page, row] = await Promise.all([pool.run<SessionView>(first), pool.run<SessionListItem>({ kind: "list-item", summary: summary! })]);
      expect(page.pages.length).toBeGreaterThan(1);
      expect(page.timeline[0]!.seq).toBe(0);
      expect(page).toEqual(JSON.parse(JSON.stringify(await sessionPage(store, id, { attachments: attachmentStore(dir, undefined), pageEvents: first.pageEvents }, first.at))));
      expect(row).toEqual(JSON.parse(JSON.stringify(await listItem(store, summary!))));
      // Another page of the same session, measured once in the child, is the page this process builds from scratch.
      for (const at of [{ page: 2 }, { seq: page.pages.at(-1)!.to }]) {
        expect(await pool.run<SessionView>({ ...first, at })).toEqual(JSON.parse(JSON.stringify(await sessionPage(store, id, { attachments: attachmentStore(dir, undefined), pageEvents: first.pageEvents }, at))));
      }
      // A job after the first ones reuses a child.
      expect((await pool.run<SessionView>({ kind: "session", sessionId: id, pageEvents: PAGE_EVENTS })).session.id).toBe(id);
    } finally {
      await pool.close();
      await store.close();
    }
  }, 60_000);

  it("answers an unknown session with the web's 404, and any other failure with its message", async () => {
    const pool = new PagePool({ url: ".dsh/sessions", cwd: dir, objects: undefined }, 1);
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
    const pool = new PagePool({ url: ".dsh/sessions", cwd: dir, objects: undefined }, 2);
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

describe("a page builder that dies", () => {
  it("is replaced: the next page is built by a new child", async () => {
    const pool = new PagePool({ url: ".dsh/sessions", cwd: dir, objects: undefined }, 1);
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
