import { appendFile } from "node:fs/promises";
import { chainGenesis, lineDigest, nextLink } from "../chain.js";
import type { LogEvent } from "../event.js";
import { linkedLine, serializeEventLine, serializeLines } from "../jsonl-format.js";
import { readJsonlLines } from "../jsonl-lines.js";

/**
 * Appends events to a JSONL log as raw lines, bypassing admission (one commit), each with its correct
 * chain link when the file is chained: what a hostile or buggy writer could leave on disk.
 */
export async function appendRawEvents(path: string, events: readonly Pick<LogEvent, "seq" | "type" | "time" | "data">[]): Promise<void> {
  const stored = await readJsonlLines(path);
  let link = chainGenesis(stored.info);
  for await (const { line } of stored.lines) link = nextLink(link, lineDigest(line));
  const lines = events.map((event) => serializeEventLine(event as LogEvent).slice(0, -1));
  await appendFile(path, serializeLines(stored.chained ? lines.map((line) => linkedLine(line, (link = nextLink(link, lineDigest(line))))) : lines));
}
