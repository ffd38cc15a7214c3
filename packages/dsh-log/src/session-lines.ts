import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import { lineOfSeq, serializeEventLine, serializeHeaderLine, type JsonlHeader } from "./jsonl-format.js";
import { JsonlParser } from "./jsonl-parse.js";
import { flatEvents } from "./flat-events.js";
import { EventLog, type EventLogOptions } from "./log.js";
import type { SessionInfo } from "./store.js";
import { markParsedBatch } from "./verified.js";

/** Lines are handed to the parser in buffers of about this size. */
const BUFFER_BYTES = 1 << 18;

/** One stored event line: the JSONL line of the event, without its newline (what stores keep as text). */
export function eventLine(event: LogEvent): string {
  return serializeEventLine(event).slice(0, -1);
}

/** The header line the parser reads first; only a frame (what the session is comes from `info`), so without the parent. */
function headerOf(info: SessionInfo): JsonlHeader {
  return { format: "dsh-log", version: 1, sessionId: info.sessionId, createdAt: info.createdAt };
}

/** The lines as the JSONL parser reads them (a header line, then each event line), in buffers, parsed as they go. */
function parsedLines(info: SessionInfo, lines: Iterable<string>, parser: JsonlParser): IterableIterator<LogEvent> {
  return flatEvents(parsedLineChunks(info, lines, parser));
}

/** The events of {@link parsedLines}, an array per buffer. */
function* parsedLineChunks(info: SessionInfo, lines: Iterable<string>, parser: JsonlParser): Generator<readonly LogEvent[]> {
  let pending: string[] = [serializeHeaderLine(headerOf(info))];
  let size = 0;
  const flush = (): readonly LogEvent[] => {
    // Byte 0 stays free: the parser turns the byte before a chunk into "[".
    const buffer = Buffer.from(` ${pending.join("")}`);
    pending = [];
    size = 0;
    return parser.lines(buffer, 1, buffer.length);
  };
  for (const line of lines) {
    pending.push(line.includes("\n") ? "\n" : `${line}\n`);
    size += line.length + 1;
    if (size >= BUFFER_BYTES) yield flush();
  }
  yield flush();
}

/**
 * Builds the log of a stored session from its event lines, through the same parser and admission as
 * a JSONL file: every event is checked, and a bad one is refused naming the session and its seq. A
 * store that records how many events a session has (its head) passes it as `head`: rows that
 * disagree with it (one deleted, one too many) are `LOG_CORRUPT` naming both counts, never a
 * shorter or longer history loaded without a word.
 */
export function loadSessionLines(info: SessionInfo, lines: Iterable<string>, options: EventLogOptions, head?: number): EventLog {
  const parser = new JsonlParser();
  const events = parsedLines(info, lines, parser);
  markParsedBatch(events);
  try {
    const log = new EventLog({ ...options, events, lineOf: lineOfSeq });
    if (head !== undefined && log.length !== head) {
      throw new LogError("LOG_CORRUPT", `session ${info.sessionId}: its head says ${head} events, but its rows hold ${log.length}`);
    }
    return log;
  } catch (error) {
    throw namedBySeq(error, info.sessionId, 0);
  }
}

/**
 * A parse or admission failure of stored lines parsed as a file whose first event is `firstSeq`,
 * named by the session and the seq at fault instead of the line (the line's refusal is its cause);
 * any other error as it is.
 */
export function namedBySeq(error: unknown, sessionId: string, firstSeq: number): unknown {
  if (!(error instanceof LogError) || error.line === undefined) return error;
  const message = error.message.replace(/^line \d+: /, "");
  return new LogError(error.code, `session ${sessionId}, seq ${firstSeq + error.line - 2}: ${message}`, { cause: error });
}

/** Parses stored event lines into deep-frozen, unadmitted events (for followers, which admit them into their own log). */
export function parseSessionLines(info: SessionInfo, lines: readonly string[]): LogEvent[] {
  return [...parsingSessionLines(info, lines)];
}

/** The same events, parsed as they are taken (so an admission that takes them one by one meets faults in the order a load does). */
export function parsingSessionLines(info: SessionInfo, lines: Iterable<string>): IterableIterator<LogEvent> {
  // The header line is parsed (and skipped) first, as in a file.
  return parsedLines(info, lines, new JsonlParser());
}
