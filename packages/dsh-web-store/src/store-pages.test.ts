import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore, putImage } from "dsh-attachments";
import { JsonlStore } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterEach, describe, expect, it } from "vitest";
import type { MeasuredSession } from "./measured-view.js";
import { SessionCache, imageRef } from "./store-pages.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A store holding sessions `a` and `b`, each with a turn begun; `grow(id)` ends that turn. */
async function twoSessions() {
  const dir = await mkdtemp(join(tmpdir(), "dsh-web-cache-"));
  dirs.push(dir);
  const store = new JsonlStore(dir);
  for (const sessionId of ["a", "b"]) {
    const { log } = await store.create({ registry: createAgentRegistry(), sessionId });
    await log.append({ type: "turn/start", data: { turn: 0 } });
    await log.close();
  }
  const grow = async (sessionId: string) => {
    const { log } = await store.open(sessionId, { registry: createAgentRegistry() });
    await log.append({ type: "turn/end", data: { turn: 0, reason: "completed" } });
    await log.close();
  };
  return { store, grow };
}

describe("SessionCache", () => {
  it("reads a session again only when the store says it grew, or after another session was read", async () => {
    const { store, grow } = await twoSessions();
    const cache = new SessionCache();
    const first = await cache.read(store, "a");
    expect(await cache.read(store, "a")).toBe(first);
    await grow("a");
    const grown = await cache.read(store, "a");
    expect(grown).not.toBe(first);
    expect(grown.log.length).toBe(2);
    expect(await cache.read(store, "a")).toBe(grown);
    expect((await cache.read(store, "b")).info.sessionId).toBe("b");
    // Only the last session is held, and none once forgotten.
    const again = await cache.read(store, "a");
    expect(again).not.toBe(grown);
    cache.forget();
    expect(await cache.read(store, "a")).not.toBe(again);
  });

  it("measures a session once per read, and again when it was read again", async () => {
    const { store, grow } = await twoSessions();
    const cache = new SessionCache();
    let measured = 0;
    const measure = async (): Promise<MeasuredSession> => {
      measured++;
      return { requests: [], facts: [] };
    };
    const session = await cache.read(store, "a");
    const first = await cache.measured(session, measure);
    expect(await cache.measured(await cache.read(store, "a"), measure)).toBe(first);
    expect(measured).toBe(1);
    await grow("a");
    expect(await cache.measured(await cache.read(store, "a"), measure)).not.toBe(first);
    // A session the cache does not hold is measured every time.
    await cache.measured(session, measure);
    await cache.measured(session, measure);
    await new SessionCache().measured(session, measure);
    expect(measured).toBe(5);
  });

  it("keeps nothing from a measurement that failed, and names an unknown session as the web's 404", async () => {
    const { store } = await twoSessions();
    const cache = new SessionCache();
    const session = await cache.read(store, "a");
    await expect(cache.measured(session, () => Promise.reject(new Error("unreadable")))).rejects.toThrow("unreadable");
    let measured = 0;
    await cache.measured(session, async () => {
      measured++;
      return { requests: [], facts: [] };
    });
    expect(measured).toBe(1);
    await expect(cache.read(store, "missing")).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: "no session missing in this store" });
  });
});

describe("imageRef", () => {
  it("finds an image the session references, once per read when a cache holds the session, and no other", async () => {
    const { store, grow } = await twoSessions();
    const image = await putImage(new FsAttachmentStore(join(dirs[0]!, "objects")), makePng(4, 4));
    const { log } = await store.open("a", { registry: createAgentRegistry() });
    await log.append({ type: "user/message", data: { content: [{ type: "text", text: "what is this?" }, { type: "image", image }], source: "user" } });
    await log.close();
    expect(await imageRef(store, "a", image.digest)).toEqual(image);
    const cache = new SessionCache();
    const found = await imageRef(store, "a", image.digest, cache);
    expect(found).toEqual(image);
    const held = await cache.read(store, "a");
    expect(cache.images(held).get(image.digest)).toEqual(image);
    expect(cache.images(held)).toBe(cache.images(await cache.read(store, "a")));
    // A session the cache does not hold is looked through every time, and leaves the held one's images as they were.
    const other = await store.read("b", createAgentRegistry());
    expect(cache.images(other)).toEqual(new Map());
    expect(new SessionCache().images(held).get(image.digest)).toEqual(image);
    expect(cache.images(held).get(image.digest)).toEqual(image);
    expect(await imageRef(store, "a", image.digest, cache)).toBe(found);
    await grow("a");
    expect(await imageRef(store, "a", image.digest, cache)).toEqual(image);
    await expect(imageRef(store, "b", image.digest, cache)).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: `session b references no image ${image.digest}` });
    await expect(imageRef(store, "missing", image.digest)).rejects.toMatchObject({ code: "WEB_NOT_FOUND", message: "no session missing in this store" });
  });
});
