import { isUtf8 } from "node:buffer";
import { describeIssues } from "dsh-base";
import { MAX_JSON_DEPTH, freezeParsedJson } from "dsh-llm";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { keepEventShapes } from "./event-shapes.js";
import { countKeys, findDuplicateKey, restoreNewlines, scanChunk } from "./json-scan.js";
import { JSONL_FORMAT, JSONL_VERSION, LINK_PREFIX_BYTES, committedEnd, jsonlHeaderSchema, linkOf, serializeHeaderLine, startsWithLink, type JsonlHeader, type ParsedJsonl } from "./jsonl-format.js";
import { markParsedBatch } from "./verified.js";

const ENVELOPE_KEYS = ["seq", "type", "time", "data"];
/** What a line's chain link becomes after its `{`: spaces, which JSON reads past (one copy per line beats a fill). */
const LINK_BLANKS = new Uint8Array(LINK_PREFIX_BYTES - 1).fill(0x20);
/**
 * Lines are parsed in chunks of about this many bytes: one `JSON.parse` per chunk instead of per line,
 * and each chunk's text small enough for the young generation (larger strings wait for a full GC).
 */
const CHUNK_BYTES = 48 * 1024;

/**
 * Parses a JSONL log incrementally, over buffers it may overwrite, so a large file is read once, in
 * pieces, without copies. Feed it whole lines with {@link lines}, which returns their events;
 * {@link end} takes the length of the unterminated rest (a torn tail). Every line that does not mean
 * exactly one thing is refused naming the line (see {@link parseJsonl}).
 */
export class JsonlParser {
  #header: JsonlHeader | undefined;
  #events: LogEvent[] = [];
  #line = 1;
  #offset = 0;
  /** The chain link of the last line read (version 2 files), kept as its bytes until asked for. */
  #lastLink: Buffer | undefined;
  /** Whether the shapes of this log's events were kept yet (from its first chunk: see {@link keepEventShapes}). */
  #shapesKept = false;
  /** One string per event type of this log (see {@link shareType}). */
  readonly #types = new Map<string, string>();

  /**
   * Parses the whole lines in `bytes[start, end)` (`end` just after a newline), overwriting them, and
   * returns their events (deep-frozen, unadmitted); `bytes[start - 1]` must exist and may be overwritten too.
   */
  lines(bytes: Buffer, start: number, end: number): LogEvent[] {
    this.#events = [];
    if (!isUtf8(bytes.subarray(start, end))) throw this.#invalidUtf8(bytes, start, end);
    let at = start;
    if (this.#header === undefined) {
      const headerEnd = bytes.indexOf(0x0a, start);
      this.#header = parseHeader(bytes.toString("utf8", start, headerEnd));
      if (this.#header.version === JSONL_VERSION) this.#lastLink = Buffer.alloc(LINK_PREFIX_BYTES);
      this.#line++;
      at = headerEnd + 1;
    }
    while (at < end) {
      // A chunk ends at the last newline within CHUNK_BYTES, or after its first line if that is longer.
      let newline = bytes.lastIndexOf(0x0a, Math.min(end, at + CHUNK_BYTES) - 1);
      if (newline < at) newline = bytes.indexOf(0x0a, at);
      this.#chunk(bytes, at, newline);
      at = newline + 1;
    }
    this.#offset += end - start;
    return this.#events;
  }

  /** The chain link of the last event line read, or `undefined` for a file written before chains (version 1) or one with no events yet. */
  get lastLink(): Buffer | undefined {
    return this.#lastLink === undefined || this.#line === 2 ? undefined : linkOf(this.#lastLink, 0);
  }

  /** The header, and the torn tail: `tail` bytes followed the last newline (a line cut short, dropped and reported). */
  end(tail: number): Pick<ParsedJsonl, "header" | "tornTail"> {
    if (this.#header === undefined) throw new LogError("LOG_CORRUPT", "the file has no complete header line", { line: 1 });
    return { header: this.#header, tornTail: tail > 0 ? { line: this.#line, offset: this.#offset, bytes: tail } : undefined };
  }

  /**
   * The lines in `bytes[start, newline)`. The fast path scans them once, parses them as one JSON array
   * (made in place: `[` before, commas between, `]` at the final newline) and checks the chunk as a
   * whole; any doubt restores the bytes and goes line by line, naming the line at fault.
   */
  #chunk(bytes: Buffer, start: number, newline: number): void {
    const linked = this.#lastLink !== undefined;
    if (linked) this.#unlink(bytes, start, newline);
    const scan = scanChunk(bytes, start, newline, linked ? LINK_PREFIX_BYTES : 0);
    if (typeof scan !== "number") {
      bytes[start - 1] = 0x5b;
      bytes[newline] = 0x5d;
      const values = parseOrUndefined(bytes.toString("utf8", start - 1, newline + 1));
      bytes[newline] = 0x0a;
      if (Array.isArray(values) && values.length === scan.lines && chunkKeys(values, this.#types) === scan.keys) {
        for (const value of values) this.#events.push(value as LogEvent);
        this.#line += scan.lines;
        if (!this.#shapesKept) {
          keepEventShapes(values);
          this.#shapesKept = true;
        }
        return;
      }
    }
    restoreNewlines(bytes, start, typeof scan === "number" ? -scan - 1 : newline);
    for (const text of bytes.toString("utf8", start, newline).split("\n")) this.#events.push(parseEventLine(text, this.#line++, this.#types));
  }

  /**
   * Blanks the chain link each line of a version 2 file starts with (JSON ignores the spaces), keeping
   * the last one; a line without one is `LOG_CORRUPT` naming it.
   */
  #unlink(bytes: Buffer, start: number, newline: number): void {
    let line = this.#line;
    for (let at = start; at <= newline; line++) {
      const end = bytes.indexOf(0x0a, at);
      if (!startsWithLink(bytes, at, end)) throw new LogError("LOG_CORRUPT", 'the line does not start with its chain link ({"chain":"...",)', { line });
      if (end === newline) bytes.copy(this.#lastLink!, 0, at, at + LINK_PREFIX_BYTES);
      bytes.set(LINK_BLANKS, at + 1);
      at = end + 1;
    }
  }

  #invalidUtf8(bytes: Buffer, start: number, end: number): LogError {
    let line = this.#line;
    for (let at = start; at < end; line++) {
      const newline = bytes.indexOf(0x0a, at);
      if (!isUtf8(bytes.subarray(at, newline))) break;
      at = newline + 1;
    }
    return new LogError("LOG_CORRUPT", "the line is not valid UTF-8", { line });
  }
}

/**
 * Parses a JSONL log from its bytes (which it leaves as they are). An unterminated final line, and
 * the whole lines of a commit whose last line never arrived, are a torn tail (never acknowledged, so
 * dropped and reported, its offset in bytes); any other line that
 * does not mean exactly one thing — invalid UTF-8, unreadable JSON, a key repeated in one object,
 * `-0` or a number too large for a double, nesting deeper than 512 levels — is refused naming the
 * line. Events come back deep-frozen and unadmitted: the caller admits them through a registry.
 */
export function parseJsonl(bytes: Uint8Array): ParsedJsonl {
  const copy = Buffer.allocUnsafe(bytes.byteLength + 1);
  copy.set(bytes, 1);
  const complete = committedEnd(copy, 1, copy.length);
  const parser = new JsonlParser();
  const events = complete > 1 ? parser.lines(copy, 1, complete) : [];
  const { header, tornTail } = parser.end(copy.length - Math.max(1, complete));
  Object.freeze(events);
  markParsedBatch(events);
  return { header, events, tornTail };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Freezes parsed event lines and returns the object keys they hold, or -1 if one is not an object
 * holding the envelope keys or is refused. Each line's text spells out at least as many keys as its
 * event holds, so the total equals the scan's count only when no line has a key besides the
 * envelope's or repeats one; reading the four keys is cheaper than enumerating them.
 */
function chunkKeys(values: readonly unknown[], types: Map<string, string>): number {
  let keys = 0;
  for (const value of values) {
    if (typeof value !== "object" || value === null) return -1;
    const event = value as Partial<LogEvent>;
    if (event.seq === undefined || event.type === undefined || event.time === undefined || event.data === undefined) return -1;
    const eventKeys = freezeEvent(event as LogEvent, types);
    if (typeof eventKeys === "string") return -1;
    keys += eventKeys;
  }
  return keys;
}

/**
 * Deep-freezes a parsed event line and returns how many object keys it holds (the envelope's and
 * every one within), or why it is refused: a `-0` or a non-finite number anywhere in it, or nesting
 * deeper than {@link MAX_JSON_DEPTH} levels. An envelope field of the wrong kind (an object for a
 * seq) is frozen and counted like data: refusing it, by name, is admission's part.
 */
function freezeEvent(event: LogEvent, types: Map<string, string>): number | string {
  const dataKeys = freezeParsedJson(event.data, MAX_JSON_DEPTH);
  if (typeof dataKeys === "string") return `data ${dataKeys}`;
  const seqKeys = freezeParsedJson(event.seq, MAX_JSON_DEPTH);
  const typeKeys = freezeParsedJson(event.type, MAX_JSON_DEPTH);
  const timeKeys = freezeParsedJson(event.time, MAX_JSON_DEPTH);
  if (typeof seqKeys === "string") return `seq ${seqKeys}`;
  if (typeof typeKeys === "string") return `type ${typeKeys}`;
  if (typeof timeKeys === "string") return `time ${timeKeys}`;
  shareType(event, types);
  Object.freeze(event);
  return dataKeys + ENVELOPE_KEYS.length + seqKeys + typeKeys + timeKeys;
}

/** At most this many types are shared per log: a log of endless distinct types gains nothing from it. */
const SHARED_TYPES = 256;

/**
 * Points the event, not yet frozen, at the log's one string for its type: `JSON.parse` makes a new
 * string for every occurrence, so each of a long log's `assistant/message` events kept its own copy.
 */
function shareType(event: LogEvent, types: Map<string, string>): void {
  const { type } = event;
  if (typeof type !== "string") return;
  const shared = types.get(type);
  if (shared !== undefined) (event as { type: string }).type = shared;
  else if (types.size < SHARED_TYPES) types.set(type, type);
}

function parseHeader(line: string): JsonlHeader {
  const value = parseJsonLine(line, 1);
  if (typeof value !== "object" || value === null || (value as { format?: unknown }).format !== JSONL_FORMAT) {
    throw new LogError("LOG_UNSUPPORTED_FORMAT", `not a ${JSONL_FORMAT} file`, { line: 1 });
  }
  const version = (value as { version?: unknown }).version;
  if (version !== 1 && version !== JSONL_VERSION) {
    throw new LogError(
      "LOG_UNSUPPORTED_FORMAT",
      `${JSONL_FORMAT} version ${JSON.stringify(version)} is not supported (this reader knows versions 1 and ${JSONL_VERSION})`,
      { line: 1 },
    );
  }
  const parsed = jsonlHeaderSchema.safeParse(value);
  if (!parsed.success) throw new LogError("LOG_CORRUPT", `invalid header: ${describeIssues(parsed.error.issues)}`, { line: 1 });
  if (serializeHeaderLine(parsed.data) !== `${line}\n`) {
    const duplicate = findDuplicateKey(line);
    throw new LogError("LOG_CORRUPT", duplicate === undefined ? "the header is not in the form the writer writes" : `the header repeats the key ${JSON.stringify(duplicate)}`, { line: 1 });
  }
  return parsed.data;
}

/** The line-by-line path: the same checks as the fast path, each failure naming its line. */
function parseEventLine(line: string, lineNumber: number, types: Map<string, string>): LogEvent {
  const value = parseJsonLine(line, lineNumber);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new LogError("LOG_CORRUPT", "an event line must be a JSON object", { line: lineNumber });
  }
  const keys = Object.keys(value);
  if (keys.length !== ENVELOPE_KEYS.length || !ENVELOPE_KEYS.every((key) => keys.includes(key))) {
    throw new LogError("LOG_CORRUPT", `an event line must have exactly the keys ${ENVELOPE_KEYS.join(", ")}`, { line: lineNumber });
  }
  const event = value as LogEvent;
  const held = freezeEvent(event, types);
  if (typeof held === "string") throw new LogError("LOG_INVALID_EVENT", held, { line: lineNumber });
  if (held !== countKeys(line)) {
    throw new LogError("LOG_CORRUPT", `the line repeats the key ${JSON.stringify(findDuplicateKey(line))} in one object`, { line: lineNumber });
  }
  return event;
}

function parseJsonLine(line: string, lineNumber: number): unknown {
  try {
    return JSON.parse(line);
  } catch (cause) {
    throw new LogError("LOG_CORRUPT", `unreadable JSON: ${(cause as Error).message}`, { cause, line: lineNumber });
  }
}
