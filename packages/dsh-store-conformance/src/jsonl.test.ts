import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlStore, type SessionStore } from "dsh-log";
import { afterAll } from "vitest";
import { describeChainConformance } from "./store-chain-conformance.js";
import { describeStoreConformance, factoryModule, type StoreHarness } from "./store-conformance.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Bytes of the chain link a version 2 line starts with: `{"chain":"<43>",`. */
const LINK_PREFIX = 55;

async function rewrite(store: SessionStore, sessionId: string, edit: (lines: string[]) => string[]): Promise<void> {
  const path = join(store.location, `${sessionId}.jsonl`);
  await writeFile(path, edit((await readFile(path, "utf8")).split("\n")).join("\n"));
}

const harness: StoreHarness = {
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "dsh-store-jsonl-"));
    dirs.push(dir);
    return new JsonlStore(dir);
  },
  // The line's stored link stays: what changes is the event, as an edit by hand would leave it.
  corrupt: (store, sessionId, seq, line) =>
    rewrite(store, sessionId, (lines) => lines.map((text, i) => (i === seq + 1 ? `${text.slice(0, LINK_PREFIX)}${line.slice(1)}` : text))),
  factory: factoryModule("jsonl"),
  locationOf: (store) => store.location,
};

describeStoreConformance("JSONL", harness);
describeChainConformance("JSONL", {
  ...harness,
  dropTail: (store, sessionId, keep) => rewrite(store, sessionId, (lines) => [...lines.slice(0, keep).concat(lines[keep]!.replace(/ $/, "")), ""]),
  unchain: (store, sessionId) =>
    rewrite(store, sessionId, ([header, ...lines]) => [header!.replace('"version":2', '"version":1'), ...lines.map((line) => (line === "" ? line : `{${line.slice(LINK_PREFIX)}`))]),
});
