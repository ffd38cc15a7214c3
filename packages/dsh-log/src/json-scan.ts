/** What {@link scanChunk} found in the lines of a chunk. */
export interface ChunkScan {
  /** How many lines the chunk holds. */
  readonly lines: number;
  /** How many object keys the lines spell out (the `:` outside strings). */
  readonly keys: number;
}

const QUOTE = 0x22;
const PLAIN = 0;
const STRING = 1;
const ESCAPE = 2;
const KEY = 3;
const OPEN = 4;
const CLOSE = 5;
const LINE = 6;
const SEPARATOR = 7;

/** What a byte means outside strings, and inside them: one table load per byte in the scan's hot loops. */
const OUTSIDE = new Uint8Array(256);
const INSIDE = new Uint8Array(256);
OUTSIDE[0x22] = STRING;
OUTSIDE[0x3a] = KEY;
OUTSIDE[0x7b] = OPEN;
OUTSIDE[0x5b] = OPEN;
OUTSIDE[0x7d] = CLOSE;
OUTSIDE[0x5d] = CLOSE;
OUTSIDE[0x0a] = LINE;
OUTSIDE[0x2c] = SEPARATOR;
INSIDE[0x22] = STRING;
INSIDE[0x5c] = ESCAPE;
INSIDE[0x0a] = LINE;
const BACKSLASH = 0x5c;
const NEWLINE = 0x0a;
const COMMA = 0x2c;

/**
 * Scans whole JSONL lines in `bytes[start, end)` in one pass, counting lines and object keys, and
 * turns them into the elements of one JSON array in place: every newline becomes `,` (the caller
 * adds the brackets). Returns where it stopped instead, as a negative `-(index + 1)`, when a line could
 * hold anything but one value (a newline inside a string, a comma between top-level values): newlines
 * before that point are already commas, and {@link restoreNewlines} puts them back. UTF-8
 * continuation bytes are never ASCII, so a byte scan is exact. When every line is known to start with
 * `{` and `blankPrefix - 1` spaces (a chain link the reader blanked), each line is scanned after them.
 */
export function scanChunk(bytes: Uint8Array, start: number, end: number, blankPrefix = 0): ChunkScan | number {
  // After a blanked prefix a line is one object deep already.
  const lineDepth = blankPrefix > 0 ? 1 : 0;
  let lines = 1;
  let keys = 0;
  let depth = lineDepth;
  for (let i = start + blankPrefix; i < end; i++) {
    const kind = OUTSIDE[bytes[i]!]!;
    if (kind === PLAIN) continue;
    if (kind === STRING) {
      for (i++; i < end; i++) {
        const inside = INSIDE[bytes[i]!]!;
        if (inside === PLAIN) continue;
        if (inside === STRING) break;
        if (inside === ESCAPE) i++;
        else return -(i + 1);
      }
      if (i === end) return -(end + 1);
    } else if (kind === KEY) keys++;
    else if (kind === OPEN) depth++;
    else if (kind === CLOSE) depth--;
    else if (kind === LINE) {
      if (depth !== 0) return -(i + 1);
      bytes[i] = COMMA;
      lines++;
      i += blankPrefix;
      depth = lineDepth;
    } else if (depth === 0) return -(i + 1);
  }
  return depth !== 0 ? -(end + 1) : { lines, keys };
}

/** Undoes {@link scanChunk} on `bytes[start, stop)`: the top-level commas outside strings were newlines. */
export function restoreNewlines(bytes: Uint8Array, start: number, stop: number): void {
  let depth = 0;
  let inString = false;
  for (let i = start; i < stop; i++) {
    const byte = bytes[i]!;
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === 0x7b || byte === 0x5b) depth++;
    else if (byte === 0x7d || byte === 0x5d) depth--;
    else if (byte === COMMA && depth === 0) bytes[i] = NEWLINE;
  }
}

/**
 * How many object keys a JSON text spells out: the `:` outside strings. A text that parses to fewer
 * keys repeated one (`JSON.parse` keeps the last silently). One pass over the characters.
 */
export function countKeys(text: string): number {
  let keys = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x3a) keys++;
  }
  return keys;
}

/**
 * The first key that appears twice in one object of a JSON text, with the line's object path, or
 * `undefined`. `JSON.parse` keeps the last of duplicate keys silently; a log line must not have any.
 * Only called on lines already known not to be in the writer's form, so it need not be fast.
 */
export function findDuplicateKey(text: string): string | undefined {
  const objects: Set<string>[] = [];
  const expectingKey: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = objects.length - 1;
      if (top >= 0 && expectingKey[top] === true) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (objects[top]!.has(key)) return key;
        objects[top]!.add(key);
        expectingKey[top] = false;
      }
      i = end;
    } else if (char === "{" || char === "[") {
      objects.push(char === "{" ? new Set() : new Set(["\u0000array"]));
      expectingKey.push(char === "{");
    } else if (char === "}" || char === "]") {
      objects.pop();
      expectingKey.pop();
    } else if (char === "," && objects.length > 0 && !objects[objects.length - 1]!.has("\u0000array")) {
      expectingKey[expectingKey.length - 1] = true;
    }
  }
  return undefined;
}
