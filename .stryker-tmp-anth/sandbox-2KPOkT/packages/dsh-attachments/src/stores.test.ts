import { execFileSync } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { computeDigest, type Sha256Digest } from "./digest.js";
import { FsAttachmentStore } from "./fs-store.js";
import { MemoryAttachmentStore } from "./memory-store.js";
import { putImage, readImage, type AttachmentStore } from "./store.js";
import { makePng } from "dsh-testkit";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "dsh-attachments-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const stores: [string, () => AttachmentStore][] = [
  ["MemoryAttachmentStore", () => new MemoryAttachmentStore()],
  ["FsAttachmentStore", () => new FsAttachmentStore(root)],
];

describe.each(stores)("%s", (_name, makeStore) => {
  it("returns exactly the bytes that were put, under their digest", async () => {
    const store = makeStore();
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const digest = await store.put(bytes);
        expect(digest).toBe(computeDigest(bytes));
        expect(await store.has(digest)).toBe(true);
        expect(await store.get(digest)).toEqual(bytes);
      }),
      { numRuns: 50 },
    );
  });

  it("is idempotent and immune to later mutation of the caller's buffer", async () => {
    const store = makeStore();
    const bytes = Uint8Array.from([1, 2, 3]);
    const digest = await store.put(bytes);
    expect(await store.put(bytes)).toBe(digest);
    bytes[0] = 9;
    expect(await store.get(digest)).toEqual(Uint8Array.from([1, 2, 3]));
  });

  it("throws ATTACHMENT_MISSING for an absent object", async () => {
    const absent = computeDigest(Uint8Array.from([42]));
    await expect(makeStore().get(absent)).rejects.toMatchObject({ code: "ATTACHMENT_MISSING", digest: absent });
  });

  it("throws ATTACHMENT_INVALID_DIGEST for a crafted digest", async () => {
    const crafted = "sha256:../../../../etc/passwd" as Sha256Digest;
    await expect(makeStore().get(crafted)).rejects.toMatchObject({ code: "ATTACHMENT_INVALID_DIGEST" });
    await expect(makeStore().has(crafted)).rejects.toMatchObject({ code: "ATTACHMENT_INVALID_DIGEST" });
  });

  it("round-trips an image through putImage/readImage with verified metadata", async () => {
    const store = makeStore();
    const bytes = makePng(7, 5);
    const ref = await putImage(store, bytes);
    expect(ref).toMatchObject({ mediaType: "image/png", width: 7, height: 5 });
    expect(await readImage(store, ref)).toEqual(bytes);
    await expect(readImage(store, { ...ref, width: 8 })).rejects.toMatchObject({
      code: "ATTACHMENT_METADATA_MISMATCH",
    });
  });
});

describe("FsAttachmentStore on disk", () => {
  it("writes objects 0600 under a digest-derived path and leaves no temp files", async () => {
    const store = new FsAttachmentStore(root);
    const digest = await store.put(makePng(2, 2));
    const path = store.pathOf(digest);
    expect(path.startsWith(join(root, "sha256"))).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(join(path, ".."))).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("detects an object whose bytes were altered on disk", async () => {
    const store = new FsAttachmentStore(root);
    const bytes = makePng(2, 2);
    const ref = await putImage(store, bytes);
    await writeFile(store.pathOf(ref.digest), makePng(2, 2, 0x10));
    await expect(store.get(ref.digest)).rejects.toMatchObject({ code: "ATTACHMENT_CORRUPT", digest: ref.digest });
    await expect(readImage(store, ref)).rejects.toMatchObject({ code: "ATTACHMENT_CORRUPT" });
  });
});

describe("FsAttachmentStore against a hostile filesystem", () => {
  async function store() {
    const base = await mkdtemp(join(tmpdir(), "dsh-hostile-"));
    const fsStore = new FsAttachmentStore(join(base, "objects"));
    const ref = await putImage(fsStore, makePng(2, 2));
    return { base, fsStore, ref, path: fsStore.pathOf(ref.digest) };
  }

  it.each([
    ["a symlink to a file outside the store", async (path: string, base: string) => {
      await writeFile(join(base, "outside.png"), makePng(2, 2));
      await rm(path);
      await symlink(join(base, "outside.png"), path);
    }],
    ["a FIFO (without hanging)", async (path: string) => {
      await rm(path);
      execFileSync("mkfifo", [path]);
    }],
    ["a symlink to /dev/zero (without reading forever)", async (path: string) => {
      await rm(path);
      await symlink("/dev/zero", path);
    }],
    ["a directory", async (path: string) => {
      await rm(path);
      await mkdir(path);
    }],
    ["a directory of the store swapped for a symlink outside", async (path: string, base: string) => {
      const dir = join(path, "..");
      await mkdir(join(base, "elsewhere"));
      await writeFile(join(base, "elsewhere", path.slice(dir.length + 1)), makePng(2, 2));
      await rm(dir, { recursive: true });
      await symlink(join(base, "elsewhere"), dir);
    }],
  ])("refuses an object that is %s as corrupt, naming its digest", async (_what, tamper) => {
    const { base, fsStore, ref, path } = await store();
    await tamper(path, base);
    const reading = readImage(fsStore, ref);
    await expect(reading).rejects.toMatchObject({ name: "AttachmentError", code: "ATTACHMENT_CORRUPT", digest: ref.digest });
    await expect(reading).rejects.toThrow(`object ${ref.digest} is not a regular file inside the store`);
  });

  it("refuses, without reading it, an object file larger than its recorded length", async () => {
    const { fsStore, ref, path } = await store();
    await appendFile(path, Buffer.alloc(1_000_000));
    await expect(readImage(fsStore, ref)).rejects.toThrowError(
      expect.objectContaining({ code: "ATTACHMENT_CORRUPT", message: `object ${ref.digest} holds ${ref.byteLength + 1_000_000} bytes, more than the ${ref.byteLength} recorded` }),
    );
  });
});
