import type { AttachmentStore } from "dsh-attachments";
import type { EventLog, SessionInfo } from "dsh-log";
import { appScript, renderPage } from "dsh-web";
import { inlineImage, sessionView } from "./measured-view.js";

/**
 * How much of each request's wire body a page that cannot ask for more holds: its start (the model,
 * the settings, the first messages). Every body repeats the history before it, so whole bodies would
 * grow a long session's page with the square of its length; `dsh requests --wire` has them whole.
 */
const STATIC_WIRE_PREVIEW = 2048;

/**
 * A session's page as one self-contained HTML file: the app's script, the session's data with the
 * start of every request's wire body, and its images inline once verified (an image that fails shows
 * its error), so it opens offline — to attach to a bug report.
 */
export async function sessionHtml(session: { readonly info: SessionInfo; readonly log: EventLog }, attachments: AttachmentStore): Promise<string> {
  const view = await sessionView(session, attachments, { images: inlineImage, composer: false, wires: STATIC_WIRE_PREVIEW });
  return renderPage({ title: `dsh session ${session.info.sessionId}`, script: await appScript(), view });
}
