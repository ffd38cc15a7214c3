import { MemoryAttachmentStore, type AttachmentStore } from "dsh-attachments";
import type { EventLog } from "dsh-log";
import { cacheRows, type CacheRow } from "./cache-report.js";
import { measuredPrompts } from "./measured-prompts.js";

/** What {@link cacheReport} reads besides the log. */
export interface CacheReportOptions {
  /** Where the session's image objects are; a request that holds an image cannot be measured without it. */
  readonly attachments?: AttachmentStore;
}

/**
 * The prefix-cache report of a logged session, one row per request as it is measured: its prompt
 * tokens, how many repeat the previous request, what the provider reported reading and writing, and
 * for every break the logged event that explains it (with the provider's own diagnosis where the
 * session asked for one). Rows stream: a long session is measured from what each request adds.
 */
export function cacheReport(log: EventLog, options: CacheReportOptions = {}): AsyncGenerator<CacheRow> {
  return cacheRows(log.slice(), measuredPrompts(log, options.attachments ?? new MemoryAttachmentStore()));
}
