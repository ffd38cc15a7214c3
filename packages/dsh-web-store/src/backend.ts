import { sessionTreeOrder } from "dsh-agent";
import { MemoryAttachmentStore, readImage, type AttachmentStore, type ImageAttachmentRef } from "dsh-attachments";
import { brokenLineage, type SessionStore } from "dsh-log";
import { PAGE_EVENTS, type RequestWire, type SessionListItem, type SessionView, type WebBackend } from "dsh-web";
import { buildPage, type PageBuilder, type PageRequest } from "./page-jobs.js";

/** What {@link storeBackend} serves besides the store's sessions. */
export interface StoreBackendOptions {
  /** Where the sessions' image objects are (default: none, so an image shows its error). */
  readonly attachments?: AttachmentStore;
  /** The most events a page of a session's timeline holds (default dsh-web's `PAGE_EVENTS`). */
  readonly pageEvents?: number;
  /** Builds pages elsewhere (a pool of processes running {@link buildPage}); by default in this process. */
  readonly builder?: PageBuilder;
  /** Runs a turn on a session from the page's composer (your agent, your providers); without it the composer is off. */
  readonly continueSession?: WebBackend["continueSession"];
  /** Answers the page's "what if" on a turn; without it the comparison is off. */
  readonly whatIf?: WebBackend["whatIf"];
}

/**
 * The web app's backend over a session store, for `startWebServer` of `dsh-web`: the list (forks
 * whose parent is gone marked), each session's pages with every request measured from its log, a
 * request's wire body when its card is opened, and images read and verified from `attachments`.
 */
export function storeBackend(store: SessionStore, options: StoreBackendOptions = {}): WebBackend {
  const attachments = options.attachments ?? new MemoryAttachmentStore();
  const pageEvents = options.pageEvents ?? PAGE_EVENTS;
  const build = <T>(request: PageRequest): Promise<T> => (options.builder === undefined ? (buildPage(store, request, { attachments, pageEvents }) as Promise<T>) : options.builder.run<T>(request));
  // A log only grows: an item built from as many events as the store now counts is still current.
  const listed = new Map<string, { readonly events: number; readonly item: SessionListItem }>();
  return {
    async listSessions() {
      const items = [];
      const summaries = await store.list();
      const broken = brokenLineage(summaries);
      for (const summary of summaries) {
        let known = listed.get(summary.sessionId);
        if (known?.events !== summary.events) {
          known = { events: summary.events, item: await build<SessionListItem>({ kind: "list-item", summary }) };
          listed.set(summary.sessionId, known);
        }
        const lineage = broken.get(summary.sessionId);
        items.push(lineage === undefined || known.item.parent === undefined ? known.item : { ...known.item, parent: { ...known.item.parent, broken: lineage } });
      }
      // Each subagent's session under its parent's, as `dsh sessions` lists them.
      return sessionTreeOrder(items, (item) => item.id, (item) => item.subagentOf?.id).map(({ entry, depth }) => ({ ...entry, depth }));
    },
    loadSession: (id, at) => build<SessionView>({ kind: "session", sessionId: id, pageEvents, ...(at === undefined ? {} : { at }) }),
    requestWire: (id, number) => build<RequestWire>({ kind: "wire", sessionId: id, request: number }),
    async image(id, digest) {
      // Found where the session is held; the bytes are read and verified here.
      const ref = await build<ImageAttachmentRef>({ kind: "image", sessionId: id, digest });
      return { bytes: await readImage(attachments, ref), mediaType: ref.mediaType };
    },
    ...(options.continueSession === undefined ? {} : { continueSession: options.continueSession }),
    ...(options.whatIf === undefined ? {} : { whatIf: options.whatIf }),
  };
}
