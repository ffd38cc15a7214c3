import type { LogEvent } from "./event.js";
import type { CreateJsonlLogOptions, JsonlLogOptions } from "./jsonl-file.js";
import type { EventLog } from "./log.js";
import type { EventRegistry } from "./registry.js";
import { LogError } from "./errors.js";
import type { HeadSigning } from "./witness.js";

/** Which session a log is, when it was created and, for a fork, its parent and seed length. */
export interface SessionInfo {
  readonly sessionId: string;
  readonly createdAt: number;
  readonly parent?: { readonly sessionId: string; readonly seedLength: number };
}

/** The info of a session stored as columns (`parent_id` and `seed_length` null for a session that is not a fork). */
export function sessionInfo(sessionId: string, createdAt: number, parentId: string | null, seedLength: number | null): SessionInfo {
  return { sessionId, createdAt, ...(parentId === null ? {} : { parent: { sessionId: parentId, seedLength: seedLength ?? 0 } }) };
}

/** A session as `list()` shows it: its info and how many events it holds. */
export interface SessionSummary extends SessionInfo {
  readonly events: number;
}

/** A session opened from a store: its info, its log, and where it lives (a file path or a URL). */
export interface StoredSession {
  readonly info: SessionInfo;
  readonly log: EventLog;
  readonly location: string;
}

/** Options of {@link SessionStore.create}: an id and time (generated when absent), and the content of a fork or a copy. */
export type CreateSessionOptions = CreateJsonlLogOptions;

/** One stored event line as it is kept, with the chain link stored beside it (none in a session written before chains). */
export interface StoredLine {
  readonly line: string;
  readonly link: Buffer | undefined;
}

/** A session's stored lines, not parsed or admitted: what {@link SessionStore.readLines} gives a verifier. */
export interface StoredLines {
  readonly info: SessionInfo;
  /** Whether the session was written with a hash chain (sessions written before chains were not). */
  readonly chained: boolean;
  /** How many events the store records the session holds, where it records that apart from the lines (SQL stores). */
  readonly recorded?: number;
  /** The lines in seq order (a torn, unacknowledged tail left out). */
  readonly lines: AsyncIterable<StoredLine> | Iterable<StoredLine>;
}

/** Options of {@link SessionStore.readLines}. */
export interface ReadLinesOptions {
  /** Read only the lines of seqs below `to` (a session's first event, a prefix a parent recorded); `recorded` is then left out. */
  readonly to?: number;
}

/** Options of {@link SessionStore.follow}. */
export interface FollowOptions {
  /** The first seq to deliver (0 delivers the whole session, then what is appended). */
  readonly fromSeq: number;
  /** Ends the iteration. */
  readonly signal: AbortSignal;
}

/**
 * Where sessions live: a JSONL directory, SQLite or PostgreSQL. Every store admits events on load
 * exactly as the JSONL reader does, lets one writer append to a session at a time (a second one gets
 * `LOG_LOCKED` or `LOG_CONFLICT` and writes nothing), and acknowledges an append only once it is
 * committed.
 */
export interface SessionStore {
  /** Where the store is, for messages (a directory or a URL without credentials). */
  readonly location: string;
  /** Creates a session (`LOG_EXISTS` if the id is taken), with a fork's seed written in the same step. */
  create(options: CreateSessionOptions): Promise<StoredSession>;
  /** Opens a session for appending, as its one writer; `close()` its log to let another writer in. */
  open(sessionId: string, options: JsonlLogOptions): Promise<StoredSession>;
  /** Reads a session without writing to it. */
  read(sessionId: string, registry: EventRegistry): Promise<StoredSession>;
  /** The session's stored lines and chain links, exactly as kept, for `verify` and proofs; with `to`, only its first `to` lines. */
  readLines(sessionId: string, options?: ReadLinesOptions): Promise<StoredLines>;
  /** Every session, oldest first. */
  list(): Promise<SessionSummary[]>;
  /** One session's info and event count (`LOG_NOT_FOUND` if absent), without reading its events: how a caller tells that it grew. */
  summary(sessionId: string): Promise<SessionSummary>;
  /** The session's events from `fromSeq` on, in committed batches, as other processes append them, until `signal` aborts. */
  follow(sessionId: string, options: FollowOptions): AsyncIterable<readonly LogEvent[]>;
  /** Releases the store's connections. */
  close(): Promise<void>;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Refuses a session id that could name something else (a path, a pattern): 1-128 characters of `[A-Za-z0-9._-]`. */
export function checkSessionId(sessionId: string): string {
  if (!SESSION_ID.test(sessionId) || sessionId.includes("..")) {
    throw new LogError("LOG_BAD_SESSION_ID", `${JSON.stringify(sessionId)} is not a session id: use 1-128 characters of [A-Za-z0-9._-]`);
  }
  return sessionId;
}

/**
 * Copies a session into `target`, byte for byte: the same id, creation time, lineage and events,
 * admitted on the way in with the source log's registry (`LOG_EXISTS` if the target holds the id).
 * The copy rebuilds the same requests, and is chained (a session written before chains gets one
 * here), its heads signed with `signing` when given; close its log when done.
 */
export function copySession(source: Pick<StoredSession, "info" | "log">, target: Pick<SessionStore, "create">, signing?: HeadSigning): Promise<StoredSession> {
  const { info, log } = source;
  return target.create({ registry: log.registry, sessionId: info.sessionId, createdAt: info.createdAt, copy: { events: log.slice(), parent: info.parent }, signing });
}
