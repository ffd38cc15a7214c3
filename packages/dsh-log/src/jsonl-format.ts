import { z } from "zod";
import type { LogEvent } from "./event.js";

/** The format name written in every JSONL log header. */
export const JSONL_FORMAT = "dsh-log";
/** The JSONL format version this code reads and writes. */
export const JSONL_VERSION = 1;

/** Zod schema of the first line of a JSONL log. */
export const jsonlHeaderSchema = z.strictObject({
  format: z.literal(JSONL_FORMAT),
  version: z.literal(JSONL_VERSION),
  sessionId: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
  parent: z
    .strictObject({ sessionId: z.string().min(1), seedLength: z.number().int().nonnegative() })
    .exactOptional(),
});

/** The first line of a JSONL log: which session it is and, for a fork, where it came from. */
export type JsonlHeader = z.output<typeof jsonlHeaderSchema>;

/** A final line that was cut off by a crash before it was acknowledged, and dropped on load. */
export interface TornTail {
  /** 1-based line number of the torn line. */
  readonly line: number;
  /** Byte offset where the torn line starts: the file's intact length. */
  readonly offset: number;
  /** How many bytes were dropped. */
  readonly bytes: number;
}

/** The parsed content of a JSONL log file. */
export interface ParsedJsonl {
  readonly header: JsonlHeader;
  readonly events: LogEvent[];
  readonly tornTail: TornTail | undefined;
}

/** Serializes one event as one line (with its newline); `data` keeps its key order exactly. */
export function serializeEventLine(event: LogEvent): string {
  return `${JSON.stringify({ seq: event.seq, type: event.type, time: event.time, data: event.data })}\n`;
}

/** Serializes the header line. */
export function serializeHeaderLine(header: JsonlHeader): string {
  const { format, version, sessionId, createdAt, parent } = header;
  return `${JSON.stringify(parent === undefined ? { format, version, sessionId, createdAt } : { format, version, sessionId, createdAt, parent })}\n`;
}

/** The 1-based line of the event with `seq` in a JSONL log (line 1 is the header). */
export function lineOfSeq(seq: number): number {
  return seq + 2;
}
