// Appends numbered events to a JSONL log until killed, printing "ack <seq>" once each batch is durable.
import { createJsonlLog, openJsonlLog } from "../jsonl-file.js";
import { noteAdded, testRegistry } from "./registry.js";

const path = process.argv[2];
if (path === undefined) throw new Error("usage: crash-writer PATH");

const registry = testRegistry();
const opened = await openJsonlLog(path, { registry }).catch(async (error: { code?: string }) => {
  if (error.code !== "LOG_NOT_FOUND") throw error;
  return createJsonlLog(path, { registry });
});
const padding = "x".repeat(20_000);
for (let batch = 0; ; batch++) {
  const size = 1 + (batch % 4);
  const start = opened.log.length;
  const inputs = Array.from({ length: size }, (_, i) => noteAdded.input({ text: `event-${start + i}`, tags: [padding] }));
  const events = await opened.log.append(inputs);
  process.stdout.write(`ack ${events.at(-1)!.seq}\n`);
}
