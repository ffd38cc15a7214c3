import { appendFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EventRegistry, createJsonlLog, defineEvent, openJsonlLog } from "dsh-log";
import { z } from "zod";

const noteAdded = defineEvent("note/added", z.strictObject({ text: z.string() }));
const registry = new EventRegistry().define(noteAdded).ignore("ui/");

export async function main(): Promise<number> {
  const path = join(await mkdtemp(join(tmpdir(), "dsh-log-")), "session.jsonl");
  const { log } = await createJsonlLog(path, { registry });
  const [event] = await log.append(noteAdded.input({ text: "hello" })); // durable once resolved
  console.log(event); // { seq: 0, type: "note/added", time: …, data: { text: "hello" } }
  await log.append({ type: "note/added", data: { text: 42 } }).catch((error: Error) => console.log(error.message));
  await log.close();

  await appendFile(path, '{"seq":1,"type":"note/ad'); // a crash mid-write leaves a torn line
  const reopened = await openJsonlLog(path, { registry });
  console.log(reopened.recovered); // { line: 3, offset: …, bytes: 24 }: dropped, never acknowledged
  await reopened.log.close();
  return reopened.log.length;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
