import { open } from "node:fs/promises";
import { LogError } from "./errors.js";
import { HEADER_BYTES, JSONL_VERSION, LINK_PREFIX_BYTES, committedEnd, headerAt, infoOfHeader, linkOf, startsWithLink } from "./jsonl-format.js";
import type { ReadLinesOptions, StoredLine, StoredLines } from "./store.js";

/** Bytes read at a time. */
const READ_BYTES = 1 << 18;
const SPACE = 0x20;

/** One line of `bytes[at, end)` (its newline at `end`) as stored: without the commit's continuation space, the link split off in a chained file. */
function storedLine(bytes: Buffer, at: number, end: number, chained: boolean): StoredLine {
  const stop = end > at && bytes[end - 1] === SPACE ? end - 1 : end;
  if (!chained) return { line: bytes.toString("utf8", at, stop), link: undefined };
  // A line without its link keeps its text: the verifier names it as the break.
  if (!startsWithLink(bytes, at, stop)) return { line: bytes.toString("utf8", at, stop), link: undefined };
  return { line: `{${bytes.toString("utf8", at + LINK_PREFIX_BYTES, stop)}`, link: linkOf(bytes, at) };
}

async function* linesOf(path: string, chained: boolean, from: number): AsyncGenerator<StoredLine> {
  const handle = await open(path, "r");
  try {
    let buffer = Buffer.allocUnsafe(READ_BYTES);
    let carried = 0;
    let position = from;
    for (;;) {
      if (carried === buffer.length) buffer = Buffer.concat([buffer, Buffer.allocUnsafe(buffer.length)]);
      const { bytesRead } = await handle.read(buffer, carried, buffer.length - carried, position);
      if (bytesRead === 0) return; // what is carried is a torn tail: never acknowledged
      position += bytesRead;
      const filled = carried + bytesRead;
      const end = committedEnd(buffer, 0, filled);
      for (let at = 0; at < end; ) {
        const newline = buffer.indexOf(0x0a, at);
        yield storedLine(buffer, at, newline, chained);
        at = newline + 1;
      }
      buffer.copy(buffer, 0, end, filled);
      carried = filled - end;
    }
  } finally {
    await handle.close();
  }
}

/** The first `count` of `lines`, reading no further. */
async function* firstOf(lines: AsyncGenerator<StoredLine>, count: number): AsyncGenerator<StoredLine> {
  if (count <= 0) return;
  let taken = 0;
  for await (const line of lines) {
    yield line;
    if (++taken === count) return;
  }
}

/** The stored lines of the JSONL log at `path`, with their links (none in a version 1 file); the header must be intact. With `to`, only its first `to` lines are read. */
export async function readJsonlLines(path: string, options: ReadLinesOptions = {}): Promise<StoredLines> {
  const handle = await open(path, "r").catch((error: NodeJS.ErrnoException) => {
    throw error.code === "ENOENT" ? new LogError("LOG_NOT_FOUND", `${path} does not exist`) : error;
  });
  let first: Buffer;
  try {
    const buffer = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    first = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const found = headerAt(first);
  if (found === undefined) throw new LogError("LOG_UNSUPPORTED_FORMAT", `${path} does not start with a dsh-log header`, { line: 1 });
  const chained = found.header.version === JSONL_VERSION;
  const lines = linesOf(path, chained, found.end);
  return { info: infoOfHeader(found.header), chained, lines: options.to === undefined ? lines : firstOf(lines, options.to) };
}
