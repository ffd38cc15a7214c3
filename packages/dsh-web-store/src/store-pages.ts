import { createAgentRegistry, reconstructRequestStream } from "dsh-agent";
import type { AttachmentStore, ImageAttachmentRef } from "dsh-attachments";
import { isDshError } from "dsh-base";
import { messageImages } from "dsh-llm";
import { LogError, type SessionStore, type SessionSummary, type StoredSession } from "dsh-log";
import { deriveEventMessage, isSurfaceEvent } from "dsh-surface";
import { PAGE_EVENTS, WebError, sessionListItem, type PageChoice, type RequestWire, type SessionListItem, type SessionView } from "dsh-web";
import { wireBody } from "dsh-wire";
import { measureSession, sessionView, wirePreview, type MeasuredSession } from "./measured-view.js";

/** What `look` finds of session `id`, with an unknown id as the web's 404. */
async function webLookup<T>(id: string, look: () => Promise<T>): Promise<T> {
  try {
    return await look();
  } catch (error) {
    if (error instanceof LogError && error.code === "LOG_NOT_FOUND") throw new WebError("WEB_NOT_FOUND", `no session ${id} in this store`);
    throw error;
  }
}

/** The store's read of a session, with an unknown id as the web's 404 (`WEB_NOT_FOUND`). */
export function readForWeb(store: SessionStore, id: string): Promise<StoredSession> {
  return webLookup(id, () => store.read(id, createAgentRegistry()));
}

/** A session's row in the list; one that cannot be read is listed with the reason, so one damaged log never hides the others. */
export async function listItem(store: SessionStore, summary: SessionSummary): Promise<SessionListItem> {
  try {
    const session = await readForWeb(store, summary.sessionId);
    return sessionListItem(summary, session.log.slice(), session.location);
  } catch (error) {
    if (!isDshError(error)) throw error;
    return { ...sessionListItem(summary, []), problem: `cannot be read: ${error.code}: ${error.message}` };
  }
}

/** The session a {@link SessionCache} holds: as read, the store's summary it was read under, its measurement once made. */
interface HeldSession {
  readonly id: string;
  readonly key: string;
  readonly session: StoredSession;
  measured?: MeasuredSession;
  images?: ReadonlyMap<string, ImageAttachmentRef>;
}

/**
 * The last session a page builder read, with its measured requests, kept while the store's summary
 * of it is unchanged: a log only grows, so the same creation time and event count are the same log,
 * and moving between the pages of a long session (or opening its requests) reads and measures it
 * once. Only one session is held, dropped before the next is read.
 */
export class SessionCache {
  #last: HeldSession | undefined;

  /** Session `id` of `store`, read now unless it is the one held and the store says it has not grown. */
  async read(store: SessionStore, id: string): Promise<StoredSession> {
    const summary = await webLookup(id, () => store.summary(id));
    const key = `${summary.createdAt}:${summary.events}`;
    if (this.#last?.id === id && this.#last.key === key) return this.#last.session;
    this.#last = undefined;
    const session = await readForWeb(store, id);
    this.#last = { id, key, session };
    return session;
  }

  /** The measured requests of `session` (as {@link read} gave it), measured now unless they were for this read. */
  async measured(session: StoredSession, measure: () => Promise<MeasuredSession>): Promise<MeasuredSession> {
    const held = this.#holding(session);
    if (held?.measured !== undefined) return held.measured;
    const measured = await measure();
    if (held !== undefined) held.measured = measured;
    return measured;
  }

  /** Lets the held session go (the next read reads again). */
  forget(): void {
    this.#last = undefined;
  }

  /** The images `session` (as {@link read} gave it) references, by digest, found once per read. */
  images(session: StoredSession): ReadonlyMap<string, ImageAttachmentRef> {
    const held = this.#holding(session);
    const images = held?.images ?? imagesOf(session);
    if (held !== undefined) held.images = images;
    return images;
  }

  /** What is held of `session`, if it is the session held. */
  #holding(session: StoredSession): HeldSession | undefined {
    return this.#last?.session === session ? this.#last : undefined;
  }
}

/** Session `id` of `store`, through `cache` when there is one. */
function readThrough(store: SessionStore, id: string, cache: SessionCache | undefined): Promise<StoredSession> {
  return cache === undefined ? readForWeb(store, id) : cache.read(store, id);
}

/** The images a session's messages reference, by digest (the first reference of each). */
function imagesOf(session: StoredSession): ReadonlyMap<string, ImageAttachmentRef> {
  const images = new Map<string, ImageAttachmentRef>();
  for (const ref of messageImages(session.log.slice().filter(isSurfaceEvent).map(deriveEventMessage))) if (!images.has(ref.digest)) images.set(ref.digest, ref);
  return images;
}

/** The reference of image `digest` in session `id`, for the server to serve its verified bytes; `WEB_NOT_FOUND` when the session references no such image. */
export async function imageRef(store: SessionStore, id: string, digest: string, cache?: SessionCache): Promise<ImageAttachmentRef> {
  const session = await readThrough(store, id, cache);
  const ref = (cache?.images(session) ?? imagesOf(session)).get(digest);
  if (ref === undefined) throw new WebError("WEB_NOT_FOUND", `session ${id} references no image ${digest}`);
  return ref;
}

/** Where a store's pages find the session's image objects, and how long a page is. */
export interface StorePageOptions {
  readonly attachments: AttachmentStore;
  /** The most events a page of the timeline holds (dsh-web's `PAGE_EVENTS` by default). */
  readonly pageEvents?: number;
}

/**
 * A page of a session's timeline (`at`, by default the last), its images served by URL from the
 * server; with `cache`, a session read and measured before is not read or measured again.
 */
export async function sessionPage(store: SessionStore, id: string, options: StorePageOptions, at?: PageChoice, cache?: SessionCache): Promise<SessionView> {
  const session = await readThrough(store, id, cache);
  const { attachments } = options;
  const images = (ref: ImageAttachmentRef) => `/api/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(ref.digest)}`;
  // The page asks for a request's wire body when it is opened: carrying every one would grow with the square of the session.
  const measure = () => measureSession(session.log, attachments, false);
  const measured = await (cache === undefined ? measure() : cache.measured(session, measure));
  return sessionView(session, attachments, { images, composer: true, wires: false, measured, pageEvents: options.pageEvents ?? PAGE_EVENTS, ...(at === undefined ? {} : { page: at }) });
}

/** The wire body of a session's request `number` (from 1) as the page shows it; `WEB_NOT_FOUND` when there is none. */
export async function requestWire(store: SessionStore, id: string, number: number, attachments: AttachmentStore, cache?: SessionCache): Promise<RequestWire> {
  const { log } = await readThrough(store, id, cache);
  let seen = 0;
  for await (const rebuilt of reconstructRequestStream(log, { only: () => ++seen === number })) return wirePreview(await wireBody(rebuilt, attachments));
  throw new WebError("WEB_NOT_FOUND", `no request ${number} in session ${id}`);
}
