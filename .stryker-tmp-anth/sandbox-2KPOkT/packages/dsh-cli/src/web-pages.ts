import type { ImageAttachmentRef } from "dsh-attachments";
import { createAgentRegistry } from "dsh-agent";
import { isDshError } from "dsh-base";
import { LogError, type SessionStore, type SessionSummary } from "dsh-log";
import { WebError, sessionListItem, type SessionListItem, type SessionView } from "dsh-web";
import { attachmentStore } from "./session.js";
import { sessionView } from "./web-view.js";

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

/** A session's page, its images served by URL from the server. */
export async function sessionPage(store: SessionStore, id: string, cwd: string, objects: string | undefined): Promise<SessionView> {
  const session = await readForWeb(store, id);
  const images = (ref: ImageAttachmentRef) => `/api/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(ref.digest)}`;
  return sessionView(session, attachmentStore(cwd, objects), { images, composer: true });
}
