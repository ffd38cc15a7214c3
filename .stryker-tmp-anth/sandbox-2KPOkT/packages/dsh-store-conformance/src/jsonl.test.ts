import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JsonlStore, type SessionStore } from "dsh-log";
import { afterAll } from "vitest";
import { describeStoreConformance, factoryModule } from "./store-conformance.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeStoreConformance("JSONL", {
  async open() {
    const dir = await mkdtemp(join(tmpdir(), "dsh-store-jsonl-"));
    dirs.push(dir);
    return new JsonlStore(dir);
  },
  async corrupt(store: SessionStore, sessionId: string, seq: number, line: string) {
    const path = join(store.location, `${sessionId}.jsonl`);
    const lines = (await readFile(path, "utf8")).split("\n");
    lines[seq + 1] = line;
    await writeFile(path, lines.join("\n"));
  },
  factory: factoryModule("jsonl"),
  locationOf: (store) => store.location,
});
