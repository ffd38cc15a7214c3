import { readImage, type ImageAttachmentRef } from "dsh-attachments";
import { createAgentRegistry } from "dsh-agent";
import type { SessionStore, SessionSummary } from "dsh-log";
import { PAGE_EVENTS, type ContinueInput, type ContinueLine, type RequestWire, type SessionListItem, type SessionView, type WebBackend } from "dsh-web";
import type { CliIo } from "./io.js";
import type { PagePool } from "./page-pool.js";
import { withContinuedAgent } from "./session-runner.js";
import { attachmentStore } from "./session.js";
import { brokenLineage } from "./lineage.js";
import { imageRef, listItem, requestWire, sessionPage } from "./web-pages.js";
import { storeWhatIf } from "./web-what-if.js";

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

/**
 * The web app's backend over a session store: the list, session pages (`pageEvents` events at most
 * each) with images served by URL, and continued turns.
 */
export function storeBackend(store: SessionStore, io: CliIo, objects: string | undefined, pages?: PagePool, pageEvents = PAGE_EVENTS): WebBackend {
  const attachments = attachmentStore(io.cwd, objects);
  // Pages and list rows are built by the pool's processes when there is one, so a large session never holds this one.
  const buildItem = (summary: SessionSummary) => (pages === undefined ? listItem(store, summary) : pages.run<SessionListItem>({ kind: "list-item", summary }));
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
          known = { events: summary.events, item: await buildItem(summary) };
          listed.set(summary.sessionId, known);
        }
        const lineage = broken.get(summary.sessionId);
        items.push(lineage === undefined || known.item.parent === undefined ? known.item : { ...known.item, parent: { ...known.item.parent, broken: lineage } });
      }
      return items;
    },
    async loadSession(id, at) {
      return pages === undefined ? sessionPage(store, id, io.cwd, objects, pageEvents, at) : pages.run<SessionView>({ kind: "session", sessionId: id, pageEvents, ...(at === undefined ? {} : { at }) });
    },
    async requestWire(id, number) {
      return pages === undefined ? requestWire(store, id, number, io.cwd, objects) : pages.run<RequestWire>({ kind: "wire", sessionId: id, request: number });
    },
    async image(id, digest) {
      // Found where the session is held; the bytes are read and verified here.
      const ref = pages === undefined ? await imageRef(store, id, digest) : await pages.run<ImageAttachmentRef>({ kind: "image", sessionId: id, digest });
      return { bytes: await readImage(attachments, ref), mediaType: ref.mediaType };
    },
    continueSession: (id, input, emit) => continueTurn(store, id, input, emit, io, objects),
    whatIf: (id, input) => storeWhatIf(store, id, input, attachments),
  };
}
