import { appendFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { JsonlStore, type SessionStore } from "dsh-log";
import { describe, expect, it } from "vitest";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";
import { inlineImage, sessionView } from "dsh-web-store";
import { attachmentStore } from "./session.js";
import { cliBackend } from "./web-backend.js";

/** `store`, counting the sessions it reads in full. */
function countingReads(store: SessionStore, reads: string[]): SessionStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === "read") return (id: string, ...rest: unknown[]) => (reads.push(id), (target.read as (...args: unknown[]) => unknown)(id, ...rest));
      const value: unknown = Reflect.get(target, key);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe("the web backend's session list", () => {
  it("reads a session again only when its log has grown", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "sessions");
    const idOf = (stderr: string) => /dsh: log: .*\/([^/\s]+)\.jsonl\n/.exec(stderr)?.[1];
    const first = idOf((await runCli(["run", "--store", dir, "Look around."], { cwd: project })).stderr)!;
    const second = idOf((await runCli(["run", "--store", dir, "And again."], { cwd: project })).stderr)!;
    const reads: string[] = [];
    const backend = cliBackend(countingReads(new JsonlStore(dir), reads), { cwd: project, env: {}, stdout: { write: () => true }, stderr: { write: () => true } }, undefined);

    const before = await backend.listSessions();
    expect(before.map((item) => item.turns)).toEqual([1, 1]);
    expect(reads.sort()).toEqual([first, second].sort());
    expect(await backend.listSessions()).toEqual(before);
    expect(reads).toHaveLength(2);

    expect((await runCli(["resume", first, "--store", dir, "More?"], { cwd: project })).code).toBe(0);
    const after = await backend.listSessions();
    expect(reads.slice(2)).toEqual([first]);
    expect(after.find((item) => item.id === first)?.turns).toBe(2);
    expect(after.find((item) => item.id === second)).toEqual(before.find((item) => item.id === second));
    // One definition of the share: dsh cache prints the web list's figure, its denominator named.
    const share = after.find((item) => item.id === first)!.cacheReadShare!;
    const report = (await runCli(["cache", first, "--store", dir], { cwd: project })).stdout;
    expect(report).toContain(`cache-read share: ${(100 * share).toFixed(1)}% of the prompt tokens the provider reported, over all ${after.find((item) => item.id === first)!.requests} request(s) that reported usage`);
  });
});

describe("the web backend's session page", () => {
  it("carries no wire bodies, measures each request as the static page does, and answers a request's body when asked", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "sessions");
    const id = /dsh: log: .*\/([^/\s]+)\.jsonl\n/.exec((await runCli(["run", "--store", dir, "Look around."], { cwd: project })).stderr)![1]!;
    const io = { cwd: project, env: {}, stdout: { write: () => true }, stderr: { write: () => true } };
    const backend = cliBackend(new JsonlStore(dir), io, undefined);
    const page = await backend.loadSession(id);
    const { log, info } = await new JsonlStore(dir).read(id, createAgentRegistry());
    const inline = await sessionView({ info, log }, attachmentStore(project, undefined), { images: inlineImage, composer: true, wires: true });
    expect(page.requests.length).toBeGreaterThan(1);
    expect(page.requests.every((request) => request.wire === undefined && request.wireBytes === undefined)).toBe(true);
    const stripped = inline.requests.map(({ wire: _wire, wireBytes: _bytes, ...rest }) => rest);
    expect(page.requests).toEqual(stripped);
    const bodies = (await runCli(["requests", id, "--store", dir, "--wire"], { cwd: project })).stdout.trimEnd().split("\n");
    for (const [index, request] of inline.requests.entries()) {
      expect(await backend.requestWire!(id, index + 1)).toEqual({ wire: request.wire, wireBytes: request.wireBytes });
      expect(request.wire).toBe(bodies[index]);
    }
    await expect(backend.requestWire!(id, inline.requests.length + 1)).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: `no request ${inline.requests.length + 1} in session ${id}` });
  });
});

describe("a store with a damaged session and a fork whose parent is gone", () => {
  it("lists every other session, names the damage, and shows the broken lineage in the web list and in dsh sessions", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "sessions");
    const idOf = (stderr: string) => /dsh: log: .*\/([^/\s]+)\.jsonl\n/.exec(stderr)?.[1];
    const parent = idOf((await runCli(["run", "--store", dir, "Look around."], { cwd: project })).stderr)!;
    const store = new JsonlStore(dir);
    const turnEnd = (await store.read(parent, createAgentRegistry())).log.slice().find((event) => event.type === "turn/end")!.seq;
    const forked = (await runCli(["fork", parent, "--store", dir, "--at", String(turnEnd)], { cwd: project })).stderr;
    const fork = / into .*\/([^/\s]+)\.jsonl\n/.exec(forked)![1]!;
    const damaged = idOf((await runCli(["run", "--store", dir, "Once more."], { cwd: project })).stderr)!;
    await appendFile(join(dir, `${damaged}.jsonl`), "not a line\n");
    await rm(join(dir, `${parent}.jsonl`));

    const backend = cliBackend(store, { cwd: project, env: {}, stdout: { write: () => true }, stderr: { write: () => true } }, undefined);
    const items = await backend.listSessions();
    expect(items.map((item) => item.id).sort()).toEqual([fork, damaged].sort());
    expect(items.find((item) => item.id === damaged)?.problem).toMatch(/^cannot be read: LOG_CORRUPT: /);
    expect(items.find((item) => item.id === fork)?.parent).toEqual({ id: parent, seedLength: turnEnd + 1, broken: `its parent ${parent} is not in this store` });

    const listed = await runCli(["sessions", "--store", dir], { cwd: project });
    expect(listed.stdout).toContain(`${parent} @ ${turnEnd + 1} (broken: its parent ${parent} is not in this store)`);
    const json = (await runCli(["sessions", "--store", dir, "--json"], { cwd: project })).stdout.trim().split("\n").map((line) => JSON.parse(line) as { sessionId: string; brokenLineage?: string });
    expect(json.find((row) => row.sessionId === fork)?.brokenLineage).toBe(`its parent ${parent} is not in this store`);
    expect(json.find((row) => row.sessionId === damaged)).not.toHaveProperty("brokenLineage");
  });
});
