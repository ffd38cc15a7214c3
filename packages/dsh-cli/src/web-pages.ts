import type { ImageAttachmentRef } from "dsh-attachments";
import { createAgentRegistry, reconstructRequestStream } from "dsh-agent";
import { isDshError } from "dsh-base";
import { LogError, type EventLog, type SessionStore, type SessionSummary } from "dsh-log";
import { WebError, sessionListItem, type PageChoice, type RequestWire, type SessionListItem, type SessionView } from "dsh-web";
import { wireBody } from "./providers.js";
import { attachmentStore } from "./session.js";
import { measureSession, sessionView, wirePreview, type MeasuredSession } from "./web-view.js";

/** The store's read of a session, with an unknown id as the web's 404. */
export async function readForWeb(store: SessionStore, id: string) {
  try {
    return await store.read(id, createAgentRegistry());
  } catch (error) {
    if (error instanceof LogError && error.code === "LOG_NOT_FOUND") throw new WebError("WEB_NOT_FOUND", `no session ${id} in this store`);
    throw error;
  }
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

/**
 * The last session a page builder measured, kept while its log has not grown, so moving between the
 * pages of a long session measures it once. A log only grows: the same number of events ending in
 * the same event is the same log.
 */
export class MeasuredSessions {
  #last: { readonly id: string; readonly key: string; readonly measured: MeasuredSession } | undefined;

  /** The measured requests of session `id`, measured now unless its log is the one measured last. */
  async of(id: string, log: EventLog, measure: () => Promise<MeasuredSession>): Promise<MeasuredSession> {
    const key = `${log.length}:${JSON.stringify(log.get(log.length - 1) ?? null)}`;
    if (this.#last?.id === id && this.#last.key === key) return this.#last.measured;
    // Dropped first: two sessions' measurements are never held at once.
    this.#last = undefined;
    const measured = await measure();
    this.#last = { id, key, measured };
    return measured;
  }
}

/**
 * A page of a session's timeline (`at`, by default the last) of `pageEvents` events at most, its
 * images served by URL from the server; with `cache`, a session measured before is not measured again.
 */
export async function sessionPage(store: SessionStore, id: string, cwd: string, objects: string | undefined, pageEvents: number, at?: PageChoice, cache?: MeasuredSessions): Promise<SessionView> {
  const session = await readForWeb(store, id);
  const attachments = attachmentStore(cwd, objects);
  const images = (ref: ImageAttachmentRef) => `/api/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(ref.digest)}`;
  // The page asks for a request's wire body when it is opened: carrying every one would grow with the square of the session.
  const measure = () => measureSession(session.log, attachments, false);
  const measured = await (cache === undefined ? measure() : cache.of(id, session.log, measure));
  return sessionView(session, attachments, { images, composer: true, wires: false, pageEvents, measured, ...(at === undefined ? {} : { page: at }) });
}

/** The wire body of a session's request `number` (from 1) as the page shows it; `WEB_NOT_FOUND` when there is none. */
export async function requestWire(store: SessionStore, id: string, number: number, cwd: string, objects: string | undefined): Promise<RequestWire> {
  const { log } = await readForWeb(store, id);
  let seen = 0;
  for await (const rebuilt of reconstructRequestStream(log, { only: () => ++seen === number })) return wirePreview(await wireBody(rebuilt, attachmentStore(cwd, objects)));
  throw new WebError("WEB_NOT_FOUND", `no request ${number} in session ${id}`);
}
