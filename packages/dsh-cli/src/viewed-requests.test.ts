import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry, reconstructRequests } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { messageImages } from "dsh-llm";
import { makePng } from "dsh-testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";
import { requestsWithImages } from "dsh-web-store";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-viewed-"));
  await mkdir(join(dir, "project"));
  await writeFile(join(dir, "project", "a.png"), makePng(3, 2));
  await writeFile(join(dir, "project", "b.png"), makePng(2, 3));
  await writeFile(join(dir, "scenario.json"), JSON.stringify({ responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "done" }] }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("requestsWithImages", () => {
  it("gives each request the step, snapshot and images a rebuild gives it, images once each in first-seen order", async () => {
    const log = join(dir, "s.jsonl");
    const cli = (...argv: string[]) => runCli(argv, { cwd: join(dir, "project") });
    const scenario = ["--scenario", join(dir, "scenario.json")];
    expect((await cli("run", ...scenario, "--image", "a.png", "--log", log, "one")).code).toBe(0);
    // The same picture again and a new one: the first keeps its place, the second is added.
    expect((await cli("resume", log, ...scenario, "--image", "b.png", "--image", "a.png", "two")).code).toBe(0);
    expect((await cli("compact", log, "--keep", "2")).code).toBe(0);
    expect((await cli("resume", log, ...scenario, "--image", "b.png", "three")).code).toBe(0);
    const { log: events } = await readJsonlLog(log, createAgentRegistry());
    const rebuilt = await reconstructRequests(events);
    const viewed = requestsWithImages(events);
    expect(viewed).toEqual(rebuilt.map(({ turn, step, dispatchSeq, snapshot, request }) => ({ turn, step, dispatchSeq, snapshot, images: messageImages(request.messages) })));
    expect(viewed.map((request) => request.images.length)).toEqual([1, 1, 2, 2, 1, 1]);
  });
});
