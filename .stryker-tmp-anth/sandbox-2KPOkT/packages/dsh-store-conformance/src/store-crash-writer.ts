// Appends numbered batches to a session of a store until killed, printing "ack <seq>" once each is committed.
// Usage: store-crash-writer FACTORY_MODULE LOCATION SESSION_ID
import type { SessionStore } from "dsh-log";
import { storeNote, storeRegistry } from "./store-registry.js";

const [factory, location, sessionId] = process.argv.slice(2);
if (factory === undefined || location === undefined || sessionId === undefined) throw new Error("usage: store-crash-writer FACTORY LOCATION SESSION_ID");
const open = ((await import(factory)) as { default: (location: string) => Promise<SessionStore> }).default;
const store = await open(location);
const registry = storeRegistry();
const { log } = await store.open(sessionId, { registry }).catch(async (error: { code?: string }) => {
  if (error.code !== "LOG_NOT_FOUND") throw error;
  return store.create({ registry, sessionId });
});
const padding = "x".repeat(2_000);
for (let batch = 0; ; batch++) {
  const start = log.length;
  const inputs = Array.from({ length: 1 + (batch % 4) }, (_, i) => storeNote.input({ text: `event-${start + i}`, meta: { padding } }));
  const events = await log.append(inputs);
  process.stdout.write(`ack ${events.at(-1)!.seq}\n`);
}
