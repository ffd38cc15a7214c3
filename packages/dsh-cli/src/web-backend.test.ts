import { join } from "node:path";
import { JsonlStore, type SessionStore } from "dsh-log";
import { describe, expect, it } from "vitest";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";
import { storeBackend } from "./web-backend.js";

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
    const backend = storeBackend(countingReads(new JsonlStore(dir), reads), { cwd: project, env: {}, stdout: { write: () => true }, stderr: { write: () => true } }, undefined);

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
  });
});
