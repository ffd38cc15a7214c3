import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DshError, createFileDurably, describeIssues, isDshError, syncPath } from "./index.js";

class TestError extends DshError<"TEST_A" | "TEST_B"> {
  override name = "TestError";
}

describe("DshError", () => {
  it("carries its code, message, name and cause", () => {
    const cause = new Error("inner");
    const error = new TestError("TEST_A", "it broke", { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: "TEST_A", message: "it broke", name: "TestError", cause });
    expect(String(error)).toBe("TestError: it broke");
    expect("cause" in new TestError("TEST_B", "no cause")).toBe(false);
  });

  it("is recognized with or without a code, and plain errors are not", () => {
    const error = new TestError("TEST_A", "x");
    expect(isDshError(error)).toBe(true);
    expect(isDshError(error, "TEST_A")).toBe(true);
    expect(isDshError(error, "TEST_B")).toBe(false);
    expect(isDshError(Object.assign(new Error("x"), { code: "TEST_A" }))).toBe(false);
    expect(isDshError("TEST_A")).toBe(false);
  });
});

describe("createFileDurably", () => {
  it("creates the file with the given mode, never replaces it, and leaves no temporary file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-base-test-"));
    const path = join(dir, "object");
    const seen: string[] = [];
    const beforeLink = async (temp: string) => {
      seen.push(await readFile(temp, "utf8"));
    };
    expect(await createFileDurably(path, new Uint8Array([0x61, 0x62]), { mode: 0o640, beforeLink })).toBe("created");
    expect(seen).toEqual(["ab"]);
    expect(await createFileDurably(path, "other")).toBe("exists");
    expect([...(await readFile(path))]).toEqual([0x61, 0x62]);
    expect((await stat(path)).mode & 0o777).toBe(0o640);
    expect(await readdir(dir)).toEqual(["object"]);
  });

  it("defaults to mode 0600 and refuses a missing directory with the system error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-base-test-"));
    await createFileDurably(join(dir, "a"), "text");
    expect((await stat(join(dir, "a"))).mode & 0o777).toBe(0o600);
    await expect(createFileDurably(join(dir, "missing", "b"), "x")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(createFileDurably(join(dir, "c"), "x", { beforeLink: async () => Promise.reject(new Error("no")) })).rejects.toThrow("no");
    expect((await readdir(dir)).sort()).toEqual(["a"]);
  });

  it("syncs files and directories, and reports a missing path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-base-test-"));
    await writeFile(join(dir, "f"), "x");
    await expect(syncPath(join(dir, "f"))).resolves.toBeUndefined();
    await expect(syncPath(dir)).resolves.toBeUndefined();
    await expect(syncPath(join(dir, "nope"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("describeIssues", () => {
  it("writes every issue on one line with its path", () => {
    expect(
      describeIssues([
        { path: ["header", "tools", 0, "name"], message: "too long" },
        { path: [], message: "two\n  lines" },
        { path: [1, "x"], message: "bad" },
      ]),
    ).toBe("header.tools[0].name: too long; two lines; [1].x: bad");
    expect(describeIssues([])).toBe("");
  });
});
