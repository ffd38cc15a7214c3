import { z } from "zod";
import type { LogEvent } from "./event.js";
import type { SessionInfo } from "./store.js";

/** The format name written in every JSONL log header. */
export const JSONL_FORMAT = "dsh-log";
/**
 * The JSONL format version this code writes: 2, whose event lines carry their chain link. Version 1
 * (written before hash chains) is still read, and appended to as it is.
 */
export const JSONL_VERSION = 2;

/** Zod schema of the first line of a JSONL log. */
export const jsonlHeaderSchema = z.strictObject({
  format: z.literal(JSONL_FORMAT),
  version: z.union([z.literal(1), z.literal(JSONL_VERSION)]),
  sessionId: z.string().min(1),
  createdAt: z.number().int().nonnegative(),
  parent: z
    .strictObject({ sessionId: z.string().min(1), seedLength: z.number().int().nonnegative() })
    .exactOptional(),
});

/** The first line of a JSONL log: which session it is and, for a fork, where it came from. */
export type JsonlHeader = z.output<typeof jsonlHeaderSchema>;

/**
 * The end of a file after its last whole commit, cut off by a crash before it was acknowledged and
 * dropped on load: a final line cut short, or whole lines of a commit whose last line never arrived.
 */
export interface TornTail {
  /** 1-based line number of the first line dropped. */
  readonly line: number;
  /** Byte offset where the dropped part starts: the file's intact length. */
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

/** The byte a writer puts before the newline of every line of a commit but its last: more of this commit follows. */
const CONTINUED = 0x20;

/**
 * The lines of one commit, as a JSONL file holds them: each line, where every line but the last ends
 * in a space before its newline. A commit is all or nothing on load: lines that end so with no line
 * after them that ends plainly are the start of a commit a crash cut off ({@link committedEnd}). JSON
 * ignores the space, so every reader parses the events as before.
 */
export function serializeLines(lines: readonly string[]): string {
  let text = "";
  for (const [i, line] of lines.entries()) text += i === lines.length - 1 ? `${line}\n` : `${line} \n`;
  return text;
}

/** How a version 2 line starts: its chain link is the first key. */
const LINK_START = '{"chain":"';
/** Characters of a link in base64url (32 bytes, unpadded). */
const LINK_CHARS = 43;
/** Bytes from a version 2 line's start to its event's first key: `{"chain":"<link>",`. */
export const LINK_PREFIX_BYTES = LINK_START.length + LINK_CHARS + 2;

/** A stored event line (`{"seq":...}`) as a version 2 file holds it: with its chain link as the first key. */
export function linkedLine(line: string, link: Uint8Array): string {
  return `${LINK_START}${Buffer.from(link).toString("base64url")}",${line.slice(1)}`;
}

/** Whether `bytes[at, end)` (one line) starts with a chain link in the form {@link linkedLine} writes. */
export function startsWithLink(bytes: Uint8Array, at: number, end: number): boolean {
  if (end - at <= LINK_PREFIX_BYTES) return false;
  for (let i = 0; i < LINK_START.length; i++) if (bytes[at + i] !== LINK_START.charCodeAt(i)) return false;
  return bytes[at + LINK_PREFIX_BYTES - 2] === 0x22 && bytes[at + LINK_PREFIX_BYTES - 1] === 0x2c;
}

/** The link a version 2 line starts with (see {@link startsWithLink}). */
export function linkOf(bytes: Buffer, at: number): Buffer {
  return Buffer.from(bytes.toString("latin1", at + LINK_START.length, at + LINK_START.length + LINK_CHARS), "base64url");
}

/**
 * The index just after the last whole commit in `bytes[start, end)`: after the last newline whose
 * line does not end in the continuation space, or `start` when there is none. What follows it is a
 * commit still being written, or one a crash cut off.
 */
export function committedEnd(bytes: Buffer, start: number, end: number): number {
  for (let newline = bytes.lastIndexOf(0x0a, end - 1); newline >= start; newline = bytes.lastIndexOf(0x0a, newline - 1)) {
    if (newline === start || bytes[newline - 1] !== CONTINUED) return newline + 1;
  }
  return start;
}

/** How far into a file its header line may end. */
export const HEADER_BYTES = 4096;

/**
 * The header line at the start of `bytes` (a file's first bytes), parsed, and where it ends (just
 * after its newline); `undefined` when the first line is no log header or ends past {@link HEADER_BYTES}.
 */
export function headerAt(bytes: Buffer): { readonly header: JsonlHeader; readonly end: number } | undefined {
  const newline = bytes.subarray(0, HEADER_BYTES).indexOf(0x0a);
  if (newline < 0) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8", 0, newline));
  } catch {
    return undefined;
  }
  const parsed = jsonlHeaderSchema.safeParse(value);
  return parsed.success ? { header: parsed.data, end: newline + 1 } : undefined;
}

/** Which session a header names: its id, creation time and, for a fork, its parent (the format fields left out). */
export function infoOfHeader(header: JsonlHeader): SessionInfo {
  return { sessionId: header.sessionId, createdAt: header.createdAt, ...(header.parent === undefined ? {} : { parent: header.parent }) };
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
