import type { AttachmentStore } from "dsh-attachments";
import type { EventLog, SessionInfo } from "dsh-log";
import { appScript, renderPage } from "dsh-web";
import { inlineImage, sessionView } from "./measured-view.js";

/**
 * A session's page as one self-contained HTML file: the app's script, the session's data with every
 * request's wire body, and its images inline once verified (an image that fails shows its error),
 * so it opens offline — to attach to a bug report.
 */
export async function sessionHtml(session: { readonly info: SessionInfo; readonly log: EventLog }, attachments: AttachmentStore): Promise<string> {
  const view = await sessionView(session, attachments, { images: inlineImage, composer: false, wires: true });
  return renderPage({ title: `dsh session ${session.info.sessionId}`, script: await appScript(), view });
}
