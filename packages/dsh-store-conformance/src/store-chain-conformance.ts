import { generateKeyPairSync } from "node:crypto";
import { SessionChain, streamSessionEvents, verifyLines, type HeadWitness, type LogEvent, type SessionStore, type SignedHead, type StoredLine } from "dsh-log";
import { eventLine } from "dsh-log/store";
import { describe, expect, it } from "vitest";
import { freshStores, type StoreHarness } from "./store-conformance.js";
import { storeNote, storeRegistry } from "./store-registry.js";

/** What the chain suite needs of a store beyond the contract suite's harness. */
export interface ChainHarness extends StoreHarness {
  /** Removes a session's events from `keep` on, behind the store's back, as if its tail had never been written. */
  dropTail(store: SessionStore, sessionId: string, keep: number): Promise<void>;
  /** Makes a session look as one written before hash chains (no links, not marked chained). */
  unchain(store: SessionStore, sessionId: string): Promise<void>;
}

/** A witness in memory, for tests: the heads in the order they came. */
function memoryWitness(): HeadWitness & { readonly heads: SignedHead[] } {
  const heads: SignedHead[] = [];
  return { heads, append: async (head) => void heads.push(head) };
}

const notes = (from: number, count: number) => Array.from({ length: count }, (_, i) => storeNote.input({ text: `note ${from + i}`, meta: { z: 1, a: [i] } }, from + i));

/** The hash-chain suite every session store passes: the same links on every store, checked by `verifyLines`. */
export function describeChainConformance(name: string, harness: ChainHarness): void {
  const registry = storeRegistry();
  const fresh = freshStores(harness);

  describe(`${name}: hash chains`, () => {
    it("reads only a session's first lines when asked, the lines a whole read starts with, whose chain holds", async () => {
      const store = await fresh();
      const created = await store.create({ registry, sessionId: "p", createdAt: 7 });
      await created.log.append(notes(0, 5));
      await created.log.close();
      const collect = async (lines: AsyncIterable<StoredLine> | Iterable<StoredLine>) => {
        const out: StoredLine[] = [];
        for await (const line of lines) out.push(line);
        return out;
      };
      const whole = await collect((await store.readLines("p")).lines);
      expect(whole).toHaveLength(5);
      for (const to of [0, 1, 3, 5, 9]) {
        const part = await store.readLines("p", { to });
        expect(part.recorded).toBeUndefined();
        expect(part.info).toMatchObject({ sessionId: "p", createdAt: 7 });
        expect(await collect(part.lines)).toEqual(whole.slice(0, to));
      }
      expect(await verifyLines(await store.readLines("p", { to: 3 }))).toMatchObject({ status: "intact", events: 3 });
    });

    it("links every line it stores the same way as every other store, across reopens, forks and copies", async () => {
      const store = await fresh();
      const created = await store.create({ registry, sessionId: "c", createdAt: 42 });
      await created.log.append(notes(0, 3));
      await created.log.append(notes(3, 1));
      await created.log.close();
      const reopened = await store.open("c", { registry });
      await Promise.all([reopened.log.append(notes(4, 2)), reopened.log.append(notes(6, 1))]);
      await reopened.log.close();
      const events = (await store.read("c", registry)).log.slice();
      // The expected head depends only on the session's identity and its lines: the same on every store.
      const expected = SessionChain.start({ sessionId: "c", createdAt: 42 });
      expected.extend(events.map(eventLine));
      expect(await verifyLines(await store.readLines("c"))).toEqual({ sessionId: "c", status: "intact", events: 7, head: expected.head.head, witnessed: 0, unwitnessed: 7 });
      const fork = await store.create({ registry, sessionId: "f", createdAt: 43, fork: { parentSessionId: "c", seed: events.slice(0, 2) } });
      await fork.log.close();
      const forkChain = SessionChain.start({ sessionId: "f", createdAt: 43, parent: { sessionId: "c", seedLength: 2 } });
      forkChain.extend(events.slice(0, 2).map(eventLine));
      expect(await verifyLines(await store.readLines("f"))).toMatchObject({ status: "intact", head: forkChain.head.head });
    });

    it("streams a session's lines as the events a read loads, in batches, forks included", async () => {
      const store = await fresh();
      const created = await store.create({ registry, sessionId: "s", createdAt: 5 });
      await created.log.append(notes(0, 5));
      await created.log.append(notes(5, 2));
      await created.log.close();
      const streamed = async (id: string, batch: number) => {
        const batches: (readonly LogEvent[])[] = [];
        for await (const events of streamSessionEvents(await store.readLines(id), registry, batch)) batches.push(events);
        return batches;
      };
      const read = (await store.read("s", registry)).log.slice();
      const inThrees = await streamed("s", 3);
      expect(inThrees.map((events) => events.length)).toEqual([3, 3, 1]);
      expect(inThrees.flat()).toEqual(read);
      expect((await streamed("s", 100)).flat()).toEqual(read);
      const fork = await store.create({ registry, sessionId: "f", createdAt: 6, fork: { parentSessionId: "s", seed: read.slice(0, 4) } });
      await fork.log.append(notes(4, 1));
      await fork.log.close();
      expect((await streamed("f", 2)).flat()).toEqual((await store.read("f", registry)).log.slice());
      const empty = await store.create({ registry, sessionId: "e", createdAt: 7 });
      await empty.log.close();
      expect(await streamed("e", 2)).toEqual([]);
    });

    it("names the seq of an edited line, and a dropped tail or rewritten log against a signed witness", async () => {
      const store = await fresh();
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      const witness = memoryWitness();
      const { log } = await store.create({ registry, sessionId: "w", createdAt: 1, signing: { key: privateKey, witness } });
      await log.append(notes(0, 2));
      await log.append(notes(2, 2));
      await log.close();
      const heads = [...witness.heads];
      expect(heads.map((head) => head.events)).toEqual([0, 2, 4]);
      expect(await verifyLines(await store.readLines("w"), { heads, publicKey })).toMatchObject({ status: "intact", witnessed: 3, unwitnessed: 0, head: heads[2]!.head });
      await harness.dropTail(store, "w", 3);
      expect(await verifyLines(await store.readLines("w"))).toMatchObject({ status: "intact", events: 3 });
      expect(await verifyLines(await store.readLines("w"), { heads, publicKey })).toMatchObject({ status: "broken", witnessedHead: { events: 4 }, problem: "the log ends at 3 events, but the witness holds a head signed at 4: its tail was dropped" });
      await harness.corrupt(store, "w", 1, eventLine({ seq: 1, type: "note/added", time: 1, data: { text: "edited" } }));
      expect(await verifyLines(await store.readLines("w"))).toMatchObject({ status: "broken", seq: 1, problem: "seq 1 breaks the chain: its line or a line before it was changed, added or removed" });
    });

    it("signs the heads of a reopened session where its chain stands, and keeps sessions written before chains unchained", async () => {
      const store = await fresh();
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      const witness = memoryWitness();
      await (await store.create({ registry, sessionId: "r", createdAt: 2 })).log.close();
      const opened = await store.open("r", { registry, signing: { key: privateKey, witness } });
      await opened.log.append(notes(0, 2));
      await opened.log.close();
      expect(witness.heads.map((head) => head.events)).toEqual([2]);
      expect(await verifyLines(await store.readLines("r"), { heads: witness.heads, publicKey })).toMatchObject({ status: "intact", unwitnessed: 0 });

      const old = await store.create({ registry, sessionId: "old", createdAt: 3 });
      await old.log.append(notes(0, 2));
      await old.log.close();
      await harness.unchain(store, "old");
      expect(await verifyLines(await store.readLines("old"))).toMatchObject({ status: "unchained", events: 2 });
      await expect(store.open("old", { registry, signing: { key: privateKey, witness } })).rejects.toMatchObject({ code: "LOG_UNSUPPORTED_FORMAT" });
      // Appended to as it is: still unchained, still loading.
      const appended = await store.open("old", { registry });
      await appended.log.append(notes(2, 1));
      await appended.log.close();
      expect((await store.read("old", registry)).log.length).toBe(3);
      expect(await verifyLines(await store.readLines("old"))).toMatchObject({ status: "unchained", events: 3 });
    });
  });
}
