import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordFixture } from "./record.js";
import { current, record } from "./test-support/cache-session.js";
import { echoSession, fixtureDir } from "./test-support/session.js";
import { installFixtureMatchers } from "./vitest.js";

installFixtureMatchers();

describe("the vitest matchers", () => {
  it("toMatchFixture passes an unchanged fixture and fails a changed one with the readable report", async () => {
    const dir = await fixtureDir();
    await recordFixture(await echoSession(), dir);
    await expect(dir).toMatchFixture();
    await expect(expect(dir).not.toMatchFixture()).rejects.toThrow("expected fixture echo to differ from the replay, and it did not");
    await writeFile(join(dir, "prompts/r1.txt"), "Another prompt.");
    await expect(expect(dir).toMatchFixture()).rejects.toThrow(/^fixture echo: 4 of 4 requests differ/);
    await expect(dir).not.toMatchFixture();
  });

  it("toKeepCacheFloor passes a floor the replay keeps and fails one it misses, naming the break", async () => {
    const dir = await record(2);
    await expect(dir).toKeepCacheFloor(0.3, current);
    await expect(expect(dir).toKeepCacheFloor(0.95, current)).rejects.toThrow(/cache-read share \d+\.\d% \(floor 95\.0%: missed\)\ncache break at request 4 \(turn 2 step 0\): the system prompt changed/);
    await expect(expect(dir).not.toKeepCacheFloor(0.3, current)).rejects.toThrow(/^expected fixture stamped to read less than 0\.3 from the cache, and it read 0\.\d+$/);
  });

  it("refuses what is not a fixture's directory", async () => {
    await expect(expect(42).toMatchFixture()).rejects.toThrow("expected the directory of a dsh fixture, got number");
    await expect(expect("").toKeepCacheFloor(0.5)).rejects.toThrow("expected the directory of a dsh fixture, got an empty string");
  });
});
