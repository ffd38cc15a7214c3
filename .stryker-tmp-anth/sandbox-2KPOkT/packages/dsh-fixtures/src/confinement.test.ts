import { mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { checkFixture, refreshFixture } from "./check.js";
import { recordFixture } from "./record.js";
import { EchoModel, echoAgent, fixtureDir } from "./test-support/session.js";

/** A fixture recorded with real tools over a working directory, and a directory outside it holding a secret. */
async function recorded() {
  const work = await fixtureDir("work");
  await mkdir(work);
  await writeFile(join(work, "notes.txt"), "hello");
  const log = new EventLog({ registry: createAgentRegistry() });
  await echoAgent(log, new EchoModel(work)).run("read it");
  const dir = await fixtureDir();
  await recordFixture({ events: log.slice() }, dir, { cwd: work, tools: "real", workdir: work });
  const outside = await mkdtemp(join(tmpdir(), "dsh-outside-"));
  await writeFile(join(outside, "secret.txt"), "TOP SECRET");
  return { dir, outside };
}

const invalid = (message: RegExp) => expect.objectContaining({ code: "FIXTURE_INVALID", message: expect.stringMatching(message) });

describe("every path a fixture names stays inside it", () => {
  it("refuses a working directory that is a symlink out of the fixture, or that climbs out of it", async () => {
    const { dir } = await recorded();
    await rm(join(dir, "workdir"), { recursive: true });
    await symlink("/", join(dir, "workdir"));
    await expect(checkFixture(dir)).rejects.toThrow(invalid(/the working directory workdir of .* leads outside the fixture/));
    const manifest = JSON.parse(await readFile(join(dir, "fixture.json"), "utf8")) as { workdir: string };
    await writeFile(join(dir, "fixture.json"), JSON.stringify({ ...manifest, workdir: "../.." }));
    await expect(checkFixture(dir)).rejects.toThrow(invalid(/workdir is a relative path inside the fixture/));
  });

  it("refuses a sidecar or a log that is a symlink to a file outside, never reading it", async () => {
    const { dir, outside } = await recorded();
    const prompt = (await readdir(join(dir, "prompts")))[0]!;
    await rm(join(dir, "prompts", prompt));
    await symlink(join(outside, "secret.txt"), join(dir, "prompts", prompt));
    const refusal = checkFixture(dir);
    await expect(refusal).rejects.toThrow(invalid(/prompts\/r1\.txt leads outside the fixture/));
    await expect(refusal).rejects.not.toThrow(/TOP SECRET/);
    const other = await recorded();
    await rename(join(other.dir, "session.jsonl"), join(other.outside, "session.jsonl"));
    await symlink(join(other.outside, "session.jsonl"), join(other.dir, "session.jsonl"));
    await expect(checkFixture(other.dir)).rejects.toThrow(invalid(/session\.jsonl: it is a symlink/));
  });

  it("writes and deletes nothing through a sidecar folder that is a symlink out of the fixture", async () => {
    const { dir, outside } = await recorded();
    await rename(join(dir, "prompts"), join(outside, "prompts"));
    await writeFile(join(outside, "prompts", "r9.txt"), "a file refresh must not delete");
    await symlink(join(outside, "prompts"), join(dir, "prompts"));
    await expect(refreshFixture(dir)).rejects.toThrow(invalid(/prompts/));
    expect((await readdir(join(outside, "prompts"))).sort()).toEqual(["r1.txt", "r9.txt"]);
  });
});
