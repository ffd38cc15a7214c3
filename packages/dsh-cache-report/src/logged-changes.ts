import { requestHeaderEvent, type EpochHeader, type RequestHeaderSnapshot } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { isSurfaceEvent } from "dsh-surface";

/** An event between two dispatches that can explain a cache break, in the shape both the report's sentences and the provider verdict read. */
export type LoggedChange =
  /** A header snapshot; `before` is the header in force until it (none before the first). */
  | { readonly kind: "header"; readonly seq: number; readonly data: RequestHeaderSnapshot; readonly before: EpochHeader | undefined }
  /** A message that replaced earlier ones: a new system prompt, a compaction, shortened tool results. */
  | { readonly kind: "replace"; readonly seq: number; readonly type: string; readonly source: string; readonly replaces: { readonly start: number; readonly end: number } };

/** The header snapshots and replacing messages logged strictly between `fromSeq` and `toSeq`, in log order. */
export function* changesBetween(events: readonly LogEvent[], fromSeq: number, toSeq: number, previous: EpochHeader | undefined): Generator<LoggedChange> {
  let header = previous;
  for (const event of events.slice(fromSeq + 1, toSeq)) {
    if (requestHeaderEvent.is(event)) {
      yield { kind: "header", seq: event.seq, data: event.data, before: header };
      header = event.data.header;
    } else if (isSurfaceEvent(event) && event.data.replaces !== undefined) {
      yield { kind: "replace", seq: event.seq, type: event.type, source: event.data.source, replaces: event.data.replaces };
    }
  }
}
