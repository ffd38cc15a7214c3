import { AttachmentError, readImage, type AttachmentStore, type ImageAttachmentRef } from "dsh-attachments";
import { reconstructRequests, type ReconstructedRequest } from "dsh-agent";
import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import type { EventLog, SessionInfo } from "dsh-log";
import { buildSessionView, usageFacts, type ComposerView, type ImageView, type RequestFacts, type SessionView } from "dsh-web";
import { cacheRows, type CacheRow } from "./cache-report.js";
import { tokenizedRequests } from "./tokenized.js";

/** Where the page finds a verified image: a URL of the server, or the bytes inline. */
export type ImageSource = (ref: ImageAttachmentRef, bytes: Uint8Array) => string;

/** An image as a data URL, for a page that must work offline. */
export const inlineImage: ImageSource = (ref, bytes) => `data:${ref.mediaType};base64,${Buffer.from(bytes).toString("base64")}`;

function imageRefs(request: ReconstructedRequest): ImageAttachmentRef[] {
  const refs = new Map<string, ImageAttachmentRef>();
  for (const message of request.request.messages) {
    if (message.role !== "user" && message.role !== "tool") continue;
    for (const block of message.content) if (block.type === "image") refs.set(block.image.digest, block.image as ImageAttachmentRef);
  }
  return [...refs.values()];
}

async function verifiedImages(request: ReconstructedRequest, attachments: AttachmentStore, source: ImageSource): Promise<ImageView[]> {
  const views: ImageView[] = [];
  for (const ref of imageRefs(request)) {
    try {
      views.push({ digest: ref.digest, mediaType: ref.mediaType, src: source(ref, await readImage(attachments, ref)) });
    } catch (error) {
      views.push({ digest: ref.digest, mediaType: ref.mediaType, error: error instanceof AttachmentError ? `${error.code}: ${error.message}` : String(error) });
    }
  }
  return views;
}

/** The selection a continued turn starts from: the latest header's, adapter-held values left out. */
export function composerOf(log: EventLog): ComposerView | undefined {
  const latest = foldRequestHeader(log)?.header;
  if (latest === undefined) return undefined;
  const { provider, model, ...explicit } = selectionFromHeader(latest);
  return { provider, model, explicit };
}

/**
 * The session page of a session: every request rebuilt, tokenized and serialized as `dsh cache` and
 * `dsh requests --wire` do, its images verified, laid out by `buildSessionView`. When an image object
 * is missing or corrupt the requests cannot be serialized: the page then shows the provider's usage
 * instead of token counts, no wire bodies, and the failed image with its error.
 */
export async function sessionView(
  session: { readonly info: SessionInfo; readonly log: EventLog },
  attachments: AttachmentStore,
  options: { readonly images: ImageSource; readonly composer: boolean },
): Promise<SessionView> {
  const { info, log } = session;
  const events = log.slice();
  let requests: ReconstructedRequest[] = [];
  const wires: string[] = [];
  async function* captured() {
    for await (const tokenized of tokenizedRequests(log, attachments)) {
      requests.push(tokenized.request);
      wires.push(tokenized.wire);
      yield tokenized;
    }
  }
  let facts: RequestFacts[] = [];
  try {
    const rows: CacheRow[] = [];
    for await (const row of cacheRows(events, captured())) rows.push(row);
    facts = rows.map((row, index) => ({ ...row, wire: wires[index]! }));
  } catch (error) {
    if (!(error instanceof AttachmentError)) throw error;
    requests = await reconstructRequests(log);
    facts = usageFacts(events, requests);
  }
  for (const [index, request] of requests.entries()) facts[index] = { ...facts[index]!, images: await verifiedImages(request, attachments, options.images) };
  const composer = options.composer ? composerOf(log) : undefined;
  return buildSessionView({ info, events, requests, facts, ...(composer === undefined ? {} : { composer }) });
}
