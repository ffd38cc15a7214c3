import { readImage, type AttachmentStore, type ImageAttachmentRef } from "dsh-attachments";
import type { ReconstructedRequest } from "dsh-agent";
import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import type { EventLog, SessionInfo } from "dsh-log";
import { buildSessionView, type ComposerView, type ImageView, type RequestFacts, type SessionView } from "dsh-web";
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
      views.push({ digest: ref.digest, mediaType: ref.mediaType, error: (error as Error).message });
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
 * `dsh requests --wire` do, its images verified, laid out by `buildSessionView`.
 */
export async function sessionView(
  session: { readonly info: SessionInfo; readonly log: EventLog },
  attachments: AttachmentStore,
  options: { readonly images: ImageSource; readonly composer: boolean },
): Promise<SessionView> {
  const { info, log } = session;
  const events = log.slice();
  const requests: ReconstructedRequest[] = [];
  const wires: string[] = [];
  async function* captured() {
    for await (const tokenized of tokenizedRequests(log, attachments)) {
      requests.push(tokenized.request);
      wires.push(tokenized.wire);
      yield tokenized;
    }
  }
  const rows: CacheRow[] = [];
  for await (const row of cacheRows(events, captured())) rows.push(row);
  const facts: RequestFacts[] = [];
  for (const [index, row] of rows.entries()) {
    facts.push({ ...row, wire: wires[index]!, images: await verifiedImages(requests[index]!, attachments, options.images) });
  }
  const composer = options.composer ? composerOf(log) : undefined;
  return buildSessionView({ info, events, requests, facts, ...(composer === undefined ? {} : { composer }) });
}
