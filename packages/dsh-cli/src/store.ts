import { existsSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { maskUrlPassword } from "dsh-base";
import { JsonlStore, readJsonlLines, readJsonlLog, openJsonlLog, type EventLog, type SessionInfo, type SessionStore, type StoredLines, type StoredSession } from "dsh-log";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { noteBrokenLineage } from "./lineage.js";
import type { CliSigning } from "./signing.js";

/** The store the CLI uses when neither `--store` nor `DSH_STORE` names one. */
export const DEFAULT_STORE = ".dsh/sessions";

/** The store URL in effect: `--store`, else `DSH_STORE`, else the JSONL directory `.dsh/sessions`. */
export function storeUrl(option: string | undefined, io: CliIo): string {
  return option ?? io.env.DSH_STORE ?? DEFAULT_STORE;
}

/** A module the CLI loads only when a store of its kind is asked for, so its native or network dependency stays optional. */
export async function optionalModule<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND" && String((error as Error).message).includes(name)) {
      throw new CliError(`this store needs the package ${name}: npm install ${name}`, EXIT.usage);
    }
    throw error;
  }
}

/** How a URL starts (`scheme:`): a store argument that has one must name a scheme dsh knows. */
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/**
 * Opens the store at `url`: `sqlite:PATH`, a `postgres://` URL, or a directory of JSONL logs. Any
 * other scheme (a misspelled `sqlit:`, a `mysql://` URL) is a usage error naming the ones dsh knows,
 * never a directory of that name.
 */
export async function openStore(url: string, cwd: string): Promise<SessionStore> {
  if (SCHEME.test(url) && !url.startsWith("sqlite:") && !isPostgresUrl(url)) {
    throw new CliError(`unknown store ${maskUrlPassword(url)}: dsh knows sqlite:PATH, postgres://… (or postgresql://…) and a directory of JSONL logs`, EXIT.usage);
  }
  if (url.startsWith("sqlite:")) {
    const { SqliteStore } = await optionalModule("dsh-store-sqlite", () => import("dsh-store-sqlite"));
    return new SqliteStore(resolve(cwd, url.slice("sqlite:".length)));
  }
  if (isPostgresUrl(url)) {
    const { PostgresStore } = await optionalModule("dsh-store-postgres", () => import("dsh-store-postgres"));
    return PostgresStore.connect(url);
  }
  return new JsonlStore(resolve(cwd, url));
}

/** A store URL fit to print: a password in it is masked. */
export function displayUrl(url: string): string {
  return SCHEME.test(url) && url.includes("@") ? maskUrlPassword(url) : url;
}

/** Whether `url` names a PostgreSQL database (`postgres://` or `postgresql://`). */
export function isPostgresUrl(url: string): boolean {
  return url.startsWith("postgres://") || url.startsWith("postgresql://");
}

/** Where a LOG argument points: a JSONL file, or a session of a store (`ID`, or `STORE#ID`). */
export type SessionRef = { readonly kind: "file"; readonly path: string } | { readonly kind: "store"; readonly url: string; readonly sessionId: string };

/**
 * Reads a LOG argument: `STORE#ID` names a session of that store; a path to an existing file, or one
 * ending in `.jsonl`, is a JSONL log (as before stores existed); anything else is a session id of the
 * store in effect.
 */
export function sessionRef(argument: string, storeOption: string | undefined, io: CliIo): SessionRef {
  const hash = argument.lastIndexOf("#");
  if (hash > 0) return { kind: "store", url: argument.slice(0, hash), sessionId: argument.slice(hash + 1) };
  const path = resolve(io.cwd, argument);
  if (argument.endsWith(".jsonl") || isAbsolute(argument) || argument.includes("/") || existsSync(path)) return { kind: "file", path };
  return { kind: "store", url: storeUrl(storeOption, io), sessionId: argument };
}

/** A session read or opened through a LOG argument; `close()` releases its log and its store. */
export interface OpenedSession {
  readonly info: SessionInfo;
  readonly log: EventLog;
  /** A file path, or `STORE#ID`. */
  readonly location: string;
  /** The store the session is in (a JSONL file's directory), open until `close()`: where its subagents' sessions go. */
  readonly store: SessionStore;
  close(): Promise<void>;
}

/**
 * A session of the store at `url`, got by `use`, with the store released when it fails and by
 * `close()` otherwise (which closes the session's log too when `closeLog`: a writer's log). It is
 * shown as `STORE#ID` unless `location` says otherwise. A fork whose lineage is broken is noted on stderr.
 */
export async function sessionInStore(
  url: string,
  io: CliIo,
  use: (store: SessionStore) => Promise<StoredSession>,
  options: { readonly closeLog: boolean; readonly location?: (stored: StoredSession, store: SessionStore) => string | undefined },
): Promise<OpenedSession> {
  const store = await openStore(url, io.cwd);
  try {
    const stored = await use(store);
    const { info, log } = stored;
    await noteBrokenLineage(store, info, io);
    return {
      info,
      log,
      store,
      location: options.location?.(stored, store) ?? `${displayUrl(url)}#${info.sessionId}`,
      close: async () => {
        if (options.closeLog) await log.close();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Says on stderr that a read left a JSONL log's torn, never acknowledged last line out. */
export function noteTornTail(tornTail: { readonly line: number; readonly bytes: number }, io: CliIo): void {
  io.stderr.write(`dsh: note: ignoring an unacknowledged torn last line (line ${tornTail.line}, ${tornTail.bytes} bytes)\n`);
}

/** Reads the session a LOG argument points at, reporting a torn JSONL tail on stderr. */
export async function readSessionRef(ref: SessionRef, io: CliIo): Promise<OpenedSession> {
  if (ref.kind === "file") {
    const { header, log, tornTail } = await readJsonlLog(ref.path, createAgentRegistry());
    if (tornTail !== undefined) noteTornTail(tornTail, io);
    return { info: header, log, location: ref.path, store: new JsonlStore(dirname(ref.path)), close: async () => undefined };
  }
  // A read log stays open: `inspect --follow` loads what it follows into it.
  return sessionInStore(ref.url, io, (store) => store.read(ref.sessionId, createAgentRegistry()), { closeLog: false });
}

/** A writer's session whose `close()` also releases its witness file, once the log is closed (and its last head witnessed). */
export function releasingWitness(session: OpenedSession, signing: CliSigning | undefined): OpenedSession {
  if (signing === undefined) return session;
  return {
    ...session,
    close: async () => {
      try {
        await session.close();
      } finally {
        await signing.witness.close();
      }
    },
  };
}

/** Opens the session a LOG argument points at for appending, as its one writer (signing its chain heads with `signing`). */
export async function openSessionRef(ref: SessionRef, io: CliIo, signing?: CliSigning): Promise<OpenedSession> {
  const options = { registry: createAgentRegistry(), signing };
  if (ref.kind === "file") {
    const opened = await openJsonlLog(ref.path, options);
    if (opened.recovered !== undefined) io.stderr.write(`dsh: note: dropped an unacknowledged torn last line (line ${opened.recovered.line}) before appending\n`);
    return releasingWitness({ info: opened.header, log: opened.log, location: ref.path, store: new JsonlStore(dirname(ref.path)), close: () => opened.log.close() }, signing);
  }
  return releasingWitness(await sessionInStore(ref.url, io, (store) => store.open(ref.sessionId, options), { closeLog: true }), signing);
}

/** The stored lines a LOG argument points at, read as they are (no admission), and how to release their store; a broken lineage is noted unless `quiet`. */
export async function storedLinesOf(ref: SessionRef, io: CliIo, options: { readonly quiet?: boolean } = {}): Promise<{ readonly stored: StoredLines; close(): Promise<void> }> {
  if (ref.kind === "file") return { stored: await readJsonlLines(ref.path), close: async () => undefined };
  const store = await openStore(ref.url, io.cwd);
  try {
    const stored = await store.readLines(ref.sessionId);
    if (options.quiet !== true) await noteBrokenLineage(store, stored.info, io);
    return { stored, close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The store a session reference can be followed in: the store itself, or the directory of a JSONL file. */
export async function followableStore(ref: SessionRef, io: CliIo): Promise<SessionStore> {
  return ref.kind === "file" ? new JsonlStore(dirname(ref.path)) : openStore(ref.url, io.cwd);
}
