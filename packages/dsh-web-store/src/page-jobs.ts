import type { SessionStore, SessionSummary } from "dsh-log";
import type { PageChoice } from "dsh-web";
import { SessionCache, imageRef, listItem, requestWire, sessionPage, type StorePageOptions } from "./store-pages.js";

/** One piece of work a page builder does for the web app: a session page, a list row, a request's wire body, an image's reference. */
export type PageRequest =
  | { readonly kind: "session"; readonly sessionId: string; readonly pageEvents?: number; readonly at?: PageChoice }
  | { readonly kind: "list-item"; readonly summary: SessionSummary }
  | { readonly kind: "wire"; readonly sessionId: string; readonly request: number }
  | { readonly kind: "image"; readonly sessionId: string; readonly digest: string };

/**
 * Builds what `request` asks for from `store`: the same work {@link storeBackend} does in-process,
 * for a builder that runs it elsewhere (a child process or a worker, so a large session never holds
 * the server's event loop). `cache` keeps the last session read and measured between requests.
 */
export function buildPage(store: SessionStore, request: PageRequest, options: StorePageOptions, cache?: SessionCache): Promise<unknown> {
  if (request.kind === "session") return sessionPage(store, request.sessionId, request.pageEvents === undefined ? options : { ...options, pageEvents: request.pageEvents }, request.at, cache);
  if (request.kind === "wire") return requestWire(store, request.sessionId, request.request, options.attachments, cache);
  if (request.kind === "image") return imageRef(store, request.sessionId, request.digest, cache);
  return listItem(store, request.summary);
}

/** Where the backend's pages are built: in-process by default, or by a pool of your own that answers {@link PageRequest}s with {@link buildPage}. */
export interface PageBuilder {
  run<T>(request: PageRequest): Promise<T>;
}
