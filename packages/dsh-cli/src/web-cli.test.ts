import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";
import { startDshWeb } from "./test-support/web-server.js";

describe("dsh web and dsh view on the command line", () => {
  it("refuses bad arguments with one line and exit 2, and a missing log with exit 3", async () => {
    expect(await runCli(["web", "extra"], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: "dsh: usage: dsh web [--store URL] [--port N] [--objects DIR] [--page-events N]\n" });
    for (const bad of ["0", "x", "1.5", ""]) {
      expect(await runCli(["web", "--page-events", bad], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: `dsh: --page-events must be a whole number of events, at least 1 (not "${bad}")\n` });
    }
    expect(await runCli(["web", "--port", "70000"], { cwd: tmpdir() })).toMatchObject({ code: 2 });
    expect(await runCli(["view", "s.jsonl"], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: usage: dsh view LOG -o FILE/) });
    expect(await runCli(["view", "missing.jsonl", "-o", "x.html"], { cwd: tmpdir() })).toMatchObject({ code: 3, stderr: expect.stringMatching(/LOG_NOT_FOUND/) });
  });

  it("serves an empty store, answers an unknown session with 404, and stops on interrupt with exit 0", async () => {
    const server = await startDshWeb(tmpdir(), ["--store", await mkdtemp(join(tmpdir(), "dsh-empty-store-"))]);
    try {
      expect(await (await fetch(`${server.url}api/sessions`, { headers: server.auth })).json()).toEqual([]);
      expect((await fetch(`${server.url}api/sessions`)).status).toBe(403);
      const missing = await fetch(`${server.url}api/sessions/nope`, { headers: server.auth });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: "no session nope in this store" });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
