import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openConfined, readHead } from "./confined-file.js";

async function tree() {
  const base = await mkdtemp(join(tmpdir(), "dsh-confined-"));
  const root = join(base, "root");
  await mkdir(join(root, "sub"), { recursive: true });
  await writeFile(join(root, "sub", "file.txt"), "inside");
  await writeFile(join(base, "outside.txt"), "outside");
  await symlink(join(base, "outside.txt"), join(root, "out-link"));
  await symlink(join(root, "sub", "file.txt"), join(root, "in-link"));
  await symlink(base, join(root, "up"));
  execFileSync("mkfifo", [join(root, "fifo")]);
  await symlink("/dev/zero", join(root, "zero"));
  return { base, root };
}

describe("openConfined", () => {
  it("opens regular files and directories inside the root, through symlinks that stay inside", async () => {
    const { root } = await tree();
    for (const path of ["sub/file.txt", "in-link", join(root, "sub", "file.txt")]) {
      const handle = await openConfined(root, path);
      expect((await readHead(handle, 100)).toString()).toBe("inside");
      await handle.close();
    }
    await (await openConfined(root, "sub", { directory: true })).close();
  });

  it.each([
    ["a missing file", "nope.txt", {}, "FILE_MISSING", "nope.txt does not exist"],
    ["a symlink leading outside", "out-link", {}, "FILE_OUTSIDE", /^out-link is outside /],
    ["a path through a symlinked directory outside", "up/outside.txt", {}, "FILE_OUTSIDE", /is outside/],
    ["a parent path", "../outside.txt", {}, "FILE_OUTSIDE", /is outside/],
    ["an absolute path elsewhere", "/etc/hostname", {}, "FILE_OUTSIDE", /is outside/],
    ["a FIFO, without hanging", "fifo", {}, "FILE_NOT_REGULAR", "fifo is not a regular file"],
    ["a device", "zero", {}, "FILE_OUTSIDE", /is outside/],
    ["a directory where a file is wanted", "sub", {}, "FILE_NOT_REGULAR", "sub is not a regular file"],
    ["a file where a directory is wanted", "sub/file.txt", { directory: true }, "FILE_NOT_DIRECTORY", "sub/file.txt is not a directory"],
  ])("refuses %s", async (_what, path, options, code, message) => {
    const { root } = await tree();
    const opening = openConfined(root, path, options);
    await expect(opening).rejects.toMatchObject({ name: "ConfinedFileError", code });
    await expect(opening).rejects.toThrow(message);
  });

  it("refuses a missing root", async () => {
    await expect(openConfined("/nonexistent/dsh-root", "x")).rejects.toMatchObject({ code: "FILE_MISSING" });
  });
});

describe("readHead", () => {
  it("reads at most the limit, and all of a shorter file", async () => {
    const { root } = await tree();
    await writeFile(join(root, "big"), "0123456789".repeat(1000));
    const handle = await openConfined(root, "big");
    expect((await readHead(handle, 15)).toString()).toBe("012345678901234");
    expect((await readHead(handle, 20_000)).length).toBe(10_000);
    await handle.close();
  });
});
