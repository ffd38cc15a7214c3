import { truncateText } from "dsh-base";
import { AttachmentError, readImage, type AttachmentStore, type ImageAttachmentRef } from "dsh-attachments";
import { reconstructRequests } from "dsh-agent";
import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import { messageImages } from "dsh-llm";
import type { EventLog, SessionInfo } from "dsh-log";
import { buildSessionView, usageFacts, type ComposerView, type ImageView, type PageChoice, type RequestFacts, type RequestWire, type SessionView } from "dsh-web";
import { cacheRows, measured, measuredPrompts, tokenizedRequests, type CacheRow } from "dsh-cache-report";
import { requestsWithImages, type RequestWithImages } from "./viewed-requests.js";

/** Where the page finds a verified image: a URL of the server, or the bytes inline. */
export type ImageSource = (ref: ImageAttachmentRef, bytes: Uint8Array) => string;

/** An image as a data URL, for a page that must work offline. */
export const inlineImage: ImageSource = (ref, bytes) => `data:${ref.mediaType};base64,${Buffer.from(bytes).toString("base64")}`;

/** Each image of each request, read and verified once per page however many requests carry it. */
function imageViews(attachments: AttachmentStore, source: ImageSource): (refs: readonly ImageAttachmentRef[]) => Promise<ImageView[]> {
  const views = new Map<string, Promise<ImageView>>();
  const view = async (ref: ImageAttachmentRef): Promise<ImageView> => {
    try {
      return { digest: ref.digest, mediaType: ref.mediaType, src: source(ref, await readImage(attachments, ref)) };
    } catch (error) {
      return { digest: ref.digest, mediaType: ref.mediaType, error: error instanceof AttachmentError ? `${error.code}: ${error.message}` : String(error) };
    }
  };
  return (refs) =>
    Promise.all(
      refs.map((ref) => {
        const key = JSON.stringify(ref);
        let known = views.get(key);
        if (known === undefined) views.set(key, (known = view(ref)));
        return known;
      }),
    );
}

/** The selection a continued turn starts from: the latest header's, adapter-held values left out. */
export function composerOf(log: EventLog): ComposerView | undefined {
  const latest = foldRequestHeader(log)?.header;
  if (latest === undefined) return undefined;
  const { provider, model, ...explicit } = selectionFromHeader(latest);
  return { provider, model, explicit };
}

/** How much of a wire body the page shows, in UTF-16 units. */
const WIRE_PREVIEW = 64 * 1024;

/** The wire body of a request as a page shows it: its start (`limit` UTF-16 units, 64 Ki by default), and the size of the whole. */
export function wirePreview(wire: string, limit = WIRE_PREVIEW): RequestWire {
  return { wire: truncateText(wire, limit), wireBytes: Buffer.byteLength(wire) };
}

/** Per request of a session, in order, what the page reads of it and its measured facts (images not yet read). */
export interface MeasuredSession {
  readonly requests: readonly RequestWithImages[];
  readonly facts: readonly RequestFacts[];
}

/** Per request, what the page reads of it and its cache row, with `wires` its wire body's preview too (of that many characters when a number), in the order of the requests. */
async function requestFacts(log: EventLog, attachments: AttachmentStore, wires: boolean | number): Promise<MeasuredSession> {
  const events = log.slice();
  const rows: CacheRow[] = [];
  if (wires === false) {
    // Measured request after request from the new messages where it can be: no request is rebuilt, no body written.
    for await (const row of cacheRows(events, measuredPrompts(log, attachments))) rows.push(row);
    return { requests: requestsWithImages(log), facts: rows };
  }
  const limit = wires === true ? WIRE_PREVIEW : wires;
  const requests: RequestWithImages[] = [];
  const previews: RequestWire[] = [];
  async function* captured() {
    for await (const tokenized of tokenizedRequests(log, attachments, { extend: true })) {
      requests.push({ ...tokenized.request, images: messageImages(tokenized.request.request.messages) });
      // The page shows the start of a long body; holding every body whole would grow with the square of a long session.
      previews.push(wirePreview(tokenized.wire, limit));
      yield tokenized;
    }
  }
  for await (const row of cacheRows(events, measured(captured()))) rows.push(row);
  return { requests, facts: rows.map((row, index) => ({ ...row, ...previews[index]! })) };
}

/**
 * Every request of a session measured as `dsh cache` measures it (with `wires`, each wire body's
 * start too, as `dsh requests --wire` writes it: 64 Ki characters, or the number `wires` gives). When an image object is missing or corrupt the
 * requests cannot be serialized: the facts are then the provider's usage, and no wire body.
 */
export async function measureSession(log: EventLog, attachments: AttachmentStore, wires: boolean | number): Promise<MeasuredSession> {
  try {
    return await requestFacts(log, attachments, wires);
  } catch (error) {
    if (!(error instanceof AttachmentError)) throw error;
    const rebuilt = await reconstructRequests(log);
    return { requests: rebuilt.map((request) => ({ ...request, images: messageImages(request.request.messages) })), facts: usageFacts(log.slice(), rebuilt) };
  }
}

/**
 * The session page of a session, laid out by `buildSessionView` from its requests as
 * {@link measureSession} measures them (or as `measured` gives them, measured before), with the images
 * of each request verified; with `wires`, each request's wire body (its start) too, for a page that
 * cannot ask for them later. With `pageEvents`, only the page `page` names is laid out, and only its
 * requests' images read. An image that fails verification is shown with its error.
 */
export async function sessionView(
  session: { readonly info: SessionInfo; readonly log: EventLog },
  attachments: AttachmentStore,
  options: { readonly images: ImageSource; readonly composer: boolean; readonly wires: boolean | number; readonly pageEvents?: number; readonly page?: PageChoice; readonly measured?: MeasuredSession },
): Promise<SessionView> {
  const { info, log } = session;
  const events = log.slice();
  const { requests, facts } = options.measured ?? (await measureSession(log, attachments, options.wires));
  const composer = options.composer ? composerOf(log) : undefined;
  const view = buildSessionView({
    info,
    events,
    requests,
    facts,
    ...(options.pageEvents === undefined ? {} : { pageEvents: options.pageEvents }),
    ...(options.page === undefined ? {} : { page: options.page }),
    ...(composer === undefined ? {} : { composer }),
  });
  // Only the requests the page shows have their images read.
  const images = imageViews(attachments, options.images);
  const shown = [];
  for (const request of view.requests) shown.push({ ...request, images: await images(requests[request.number - 1]!.images) });
  return { ...view, requests: shown };
}
