import { readImage, type ImageAttachmentRef } from "dsh-attachments";
import { createAgentRegistry } from "dsh-agent";
import { isDshError } from "dsh-base";
import { LogError, type SessionStore, type SessionSummary } from "dsh-log";
import { messageImages } from "dsh-llm";
import { deriveEventMessage, isSurfaceEvent } from "dsh-surface";
import { WebError, sessionListItem, type ContinueInput, type ContinueLine, type SessionListItem, type WebBackend } from "dsh-web";
import type { CliIo } from "./io.js";
import { withContinuedAgent } from "./session-runner.js";
import { attachmentStore } from "./session.js";
import { brokenLineage } from "./lineage.js";
import { sessionView } from "./web-view.js";

/** The store's read of a session, with an unknown id as the web's 404. */
async function read(store: SessionStore, id: string) {
  try {
    return await store.read(id, createAgentRegistry());
  } catch (error) {
    if (error instanceof LogError && error.code === "LOG_NOT_FOUND") throw new WebError("WEB_NOT_FOUND", `no session ${id} in this store`);
    throw error;
  }
}

/** Runs one turn on a session of `store`, as `dsh resume` would with no overrides but the ones given, keeping the session's current prompt. */
async function continueTurn(store: SessionStore, id: string, input: ContinueInput, emit: (line: ContinueLine) => void, io: CliIo, objects: string | undefined): Promise<void> {
  const { info, log } = await store.open(id, { registry: createAgentRegistry() });
  const values = { timeout: "120000", model: input.model, ...(objects === undefined ? {} : { objects }) };
  await withContinuedAgent({ info, log, close: () => log.close() }, values, io, async (agent) => {
    const result = await agent.run(input.prompt, {
      onChunk: (chunk) => {
        if (chunk.type === "text-delta") emit({ type: "text", text: chunk.text });
        else if (chunk.type === "tool-call-delta" && chunk.name !== undefined) emit({ type: "tool", name: chunk.name });
      },
    });
    emit({ type: "done", turn: result.turn, reason: result.reason });
  });
}

/** A session's row in the list; one that cannot be read is listed with the reason, so one damaged log never hides the others. */
async function listItem(store: SessionStore, summary: SessionSummary): Promise<SessionListItem> {
  try {
    const session = await read(store, summary.sessionId);
    return sessionListItem(summary, session.log.slice(), session.location);
  } catch (error) {
    if (!isDshError(error)) throw error;
    return { ...sessionListItem(summary, []), problem: `cannot be read: ${error.code}: ${error.message}` };
  }
}

/** The web app's backend over a session store: the list, session pages with images served by URL, and continued turns. */
export function storeBackend(store: SessionStore, io: CliIo, objects: string | undefined): WebBackend {
  const attachments = attachmentStore(io.cwd, objects);
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
          known = { events: summary.events, item: await listItem(store, summary) };
          listed.set(summary.sessionId, known);
        }
        const lineage = broken.get(summary.sessionId);
        items.push(lineage === undefined || known.item.parent === undefined ? known.item : { ...known.item, parent: { ...known.item.parent, broken: lineage } });
      }
      return items;
    },
    async loadSession(id) {
      const session = await read(store, id);
      const images = (ref: ImageAttachmentRef) => `/api/sessions/${encodeURIComponent(id)}/images/${encodeURIComponent(ref.digest)}`;
      return sessionView(session, attachments, { images, composer: true });
    },
    async image(id, digest) {
      const { log } = await read(store, id);
      const ref = messageImages(log.slice().filter(isSurfaceEvent).map(deriveEventMessage)).find((image) => image.digest === digest);
      if (ref !== undefined) return { bytes: await readImage(attachments, ref), mediaType: ref.mediaType };
      throw new WebError("WEB_NOT_FOUND", `session ${id} references no image ${digest}`);
    },
    continueSession: (id, input, emit) => continueTurn(store, id, input, emit, io, objects),
  };
}
