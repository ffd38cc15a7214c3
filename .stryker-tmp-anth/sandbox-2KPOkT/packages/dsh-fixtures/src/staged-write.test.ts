import { spawn } from "node:child_process";
import { cp, mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { refreshFixture } from "./check.js";
import { loadFixture } from "./fixture-dir.js";
import { recordFixture } from "./record.js";
import { settleStagedWrite, stagedWrite, STAGING } from "./staged-write.js";
import { echoSession, fixtureDir, SYSTEM_PROMPT } from "./test-support/session.js";

/** Every file of a fixture directory with its text, the staging folder left out. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === STAGING) continue;
    if (entry.isDirectory()) for (const name of await readdir(join(dir, entry.name))) out[`${entry.name}/${name}`] = await readFile(join(dir, entry.name, name), "utf8");
    else out[entry.name] = await readFile(join(dir, entry.name), "utf8");
  }
  return out;
}

const changedPrompt = () => ({ systemPrompt: () => SYSTEM_PROMPT.replace("briefly", "in detail") });

/** A recorded fixture, and the files it has before and after a refresh with a changed prompt. */
async function beforeAndAfter(): Promise<{ dir: string; before: Record<string, string>; after: Record<string, string> }> {
  const dir = await fixtureDir();
  await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
  const before = await snapshot(dir);
  const copy = `${dir}-refreshed`;
  await cp(dir, copy, { recursive: true });
  await refreshFixture(copy, changedPrompt());
  const after = await snapshot(copy);
  await rm(copy, { recursive: true, force: true });
  expect(after).not.toEqual(before);
  return { dir, before, after };
}

describe("a refresh cut short", () => {
  it("leaves the fixture as it was when it stopped before committing", async () => {
    const { dir, before, after } = await beforeAndAfter();
    await mkdir(join(dir, STAGING, "prompts"), { recursive: true });
    await writeFile(join(dir, STAGING, "prompts", "r1.txt"), after["prompts/r1.txt"]!);
    await writeFile(join(dir, STAGING, "session.jsonl"), after["session.jsonl"]!.slice(0, 100));
    await loadFixture(dir);
    expect(await snapshot(dir)).toEqual(before);
    expect(await readdir(dir)).not.toContain(STAGING);
  });

  it("is completed by the next load when it stopped after committing, halfway through moving files", async () => {
    const { dir, after } = await beforeAndAfter();
    // What a killed refresh leaves after its commit: some new files moved in, the rest staged.
    await mkdir(join(dir, STAGING, "tools"), { recursive: true });
    await writeFile(join(dir, STAGING, "session.jsonl"), after["session.jsonl"]!);
    await writeFile(join(dir, STAGING, "fixture.json"), after["fixture.json"]!);
    for (const [file, text] of Object.entries(after)) if (file.startsWith("tools/")) await writeFile(join(dir, STAGING, file), text);
    for (const [file, text] of Object.entries(after)) if (file.startsWith("prompts/")) await writeFile(join(dir, file), text);
    await writeFile(join(dir, STAGING, "COMMITTED"), "");
    const loaded = await loadFixture(dir);
    expect(await snapshot(dir)).toEqual(after);
    expect(loaded.revisions.map((revision) => revision.prompt)).toEqual([SYSTEM_PROMPT.replace("briefly", "in detail")]);
  });

  it("refuses a staging folder that is a symlink or a file, writing nothing through it", async () => {
    const { dir } = await beforeAndAfter();
    const elsewhere = await fixtureDir();
    await mkdir(elsewhere, { recursive: true });
    await symlink(elsewhere, join(dir, STAGING));
    await expect(loadFixture(dir)).rejects.toMatchObject({ code: "FIXTURE_INVALID", message: expect.stringContaining("is not the folder a refresh of this fixture makes") });
    await expect(stagedWrite(dir, new Map([["fixture.json", "{}"]]), async () => undefined)).rejects.toMatchObject({ code: "FIXTURE_INVALID" });
    expect(await readdir(elsewhere)).toEqual([]);
    await rm(join(dir, STAGING));
    await writeFile(join(dir, STAGING), "not a folder");
    await expect(settleStagedWrite(dir, async () => undefined)).rejects.toMatchObject({ code: "FIXTURE_INVALID" });
  });

  it("leaves the old or the new fixture, whole, when the refreshing process is killed at any point", async () => {
    const { dir, before, after } = await beforeAndAfter();
    const script = fileURLToPath(new URL("./test-support/refresh-child.ts", import.meta.url));
    for (let round = 0; round < 4; round++) {
      const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", script, dir], { stdio: ["ignore", "pipe", "inherit"] });
      // Killed once it reports that it started writing, at a point that varies with the machine.
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      child.kill("SIGKILL");
      await new Promise((resolve) => child.once("exit", resolve));
      await loadFixture(dir);
      const now = await snapshot(dir);
      expect([before, after]).toContainEqual(now);
      // Back to the old fixture for the next round.
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir);
      for (const [file, text] of Object.entries(before)) {
        await mkdir(join(dir, file, ".."), { recursive: true });
        await writeFile(join(dir, file), text);
      }
    }
  }, 60_000);
});
