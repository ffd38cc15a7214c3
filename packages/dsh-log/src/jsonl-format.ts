import { describeIssues } from "dsh-base";
import { isUtf8 } from "node:buffer";
import { z } from "zod";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { findDuplicateKey } from "./json-scan.js";
import { MAX_JSON_DEPTH } from "dsh-llm";

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

const ENVELOPE_KEYS = ["seq", "type", "time", "data"];

/**
 * Parses a JSONL log from its bytes. An unterminated final line is a torn tail (never acknowledged,
 * so dropped and reported, its offset in bytes); anything else that is not exactly what the writer
 * writes — invalid UTF-8, unreadable JSON, duplicate keys, another spelling of the same JSON — is
 * corruption and throws `LOG_CORRUPT` naming the line. Events are returned unadmitted: the caller
 * admits them through a registry.
 */
export function parseJsonl(bytes: Uint8Array): ParsedJsonl {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const complete = buffer.lastIndexOf(0x0a) + 1;
  if (!isUtf8(buffer.subarray(0, complete))) throw invalidUtf8(buffer, complete);
  const events: LogEvent[] = [];
  let header: JsonlHeader | undefined;
  let line = 1;
  for (let start = 0; start < complete; line++) {
    const end = buffer.indexOf(0x0a, start);
    const text = buffer.toString("utf8", start, end);
    if (header === undefined) header = parseHeader(text);
    else events.push(parseEventLine(text, line));
    start = end + 1;
  }
  if (header === undefined) throw new LogError("LOG_CORRUPT", "the file has no complete header line", { line: 1 });
  const tornTail = complete < buffer.length ? { line, offset: complete, bytes: buffer.length - complete } : undefined;
  return { header, events, tornTail };
}

function invalidUtf8(buffer: Buffer, complete: number): LogError {
  let line = 1;
  for (let start = 0; start < complete; line++) {
    const end = buffer.indexOf(0x0a, start);
    if (!isUtf8(buffer.subarray(start, end))) break;
    start = end + 1;
  }
  return new LogError("LOG_CORRUPT", "the line is not valid UTF-8", { line });
}

/** Throws unless `text` is exactly `written`, the writer's form of what it parsed to. */
function checkWritten(text: string, written: () => string, lineNumber: number): void {
  let expected: string;
  try {
    expected = written();
  } catch (cause) {
    if (!(cause instanceof RangeError)) throw cause;
    throw new LogError("LOG_INVALID_EVENT", `data nests deeper than ${MAX_JSON_DEPTH} levels`, { cause, line: lineNumber });
  }
  if (expected === `${text}\n`) return;
  const duplicate = findDuplicateKey(text);
  throw new LogError(
    "LOG_CORRUPT",
    duplicate === undefined
      ? "the line is not in the form the writer writes (extra whitespace, or a value spelled another way)"
      : `the line repeats the key ${JSON.stringify(duplicate)} in one object`,
    { line: lineNumber },
  );
}

function parseHeader(line: string): JsonlHeader {
  const value = parseJsonLine(line, 1);
  if (typeof value !== "object" || value === null || (value as { format?: unknown }).format !== JSONL_FORMAT) {
    throw new LogError("LOG_UNSUPPORTED_FORMAT", `not a ${JSONL_FORMAT} file`, { line: 1 });
  }
  const version = (value as { version?: unknown }).version;
  if (version !== JSONL_VERSION) {
    throw new LogError(
      "LOG_UNSUPPORTED_FORMAT",
      `${JSONL_FORMAT} version ${JSON.stringify(version)} is not supported (this reader knows version ${JSONL_VERSION})`,
      { line: 1 },
    );
  }
  const parsed = jsonlHeaderSchema.safeParse(value);
  if (!parsed.success) {
    throw new LogError("LOG_CORRUPT", `invalid header: ${describeIssues(parsed.error.issues)}`, { line: 1 });
  }
  checkWritten(line, () => serializeHeaderLine(parsed.data), 1);
  return parsed.data;
}

function parseEventLine(line: string, lineNumber: number): LogEvent {
  const value = parseJsonLine(line, lineNumber);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LogError("LOG_CORRUPT", "an event line must be a JSON object", { line: lineNumber });
  }
  const keys = Object.keys(value);
  if (keys.length !== ENVELOPE_KEYS.length || !ENVELOPE_KEYS.every((key) => keys.includes(key))) {
    throw new LogError("LOG_CORRUPT", `an event line must have exactly the keys ${ENVELOPE_KEYS.join(", ")}`, {
      line: lineNumber,
    });
  }
  checkWritten(line, () => serializeEventLine(value as LogEvent), lineNumber);
  return value as LogEvent;
}

function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (cause) {
    throw new LogError("LOG_CORRUPT", `unreadable JSON: ${(cause as Error).message}`, { cause, line: lineNumber });
  }
}
