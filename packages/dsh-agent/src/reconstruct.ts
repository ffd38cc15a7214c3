import { readImage, type AttachmentStore } from "dsh-attachments";
import type { RequestHeaderSnapshot } from "dsh-header";
import { RequestFreezer, messageImages, type FrozenGenerateOptions } from "dsh-llm";
import { EventLog, type EventRegistry, type LogEvent } from "dsh-log";
import { createAgentRegistry } from "./register.js";
import { buildLoopRequest, emptyRequestFold, foldRequestEvent, type RequestFold } from "./request.js";
import { loopAdmission } from "./loop-rule.js";
import { AgentError } from "./errors.js";
import { stepEndEvent } from "./events.js";

/** One dispatched loop request, rebuilt from the log. */
export interface ReconstructedRequest {
  readonly turn: number;
  readonly step: number;
  /** The seq of the step's `request/dispatch`: the request is the fold of the log up to it. */
  readonly dispatchSeq: number;
  /** The header snapshot the request carried. */
  readonly snapshot: RequestHeaderSnapshot;
  readonly request: FrozenGenerateOptions;
  /**
   * Whether the request may have left the process: false when its step ended `unsent` (it failed or
   * was aborted before any attempt sent a byte), true otherwise.
   */
  readonly sent: boolean;
}

/** Options of {@link reconstructRequests}. */
export interface ReconstructOptions {
  /** When given, every referenced image is read and verified; a missing or corrupt one throws. */
  readonly attachments?: AttachmentStore;
  /** The registry raw events are admitted with (default `createAgentRegistry()`); ignored for an `EventLog`. */
  readonly registry?: EventRegistry;
  /**
   * Rebuilds only the requests this accepts, named by their step and dispatch seq (default: all).
   * Every event is still admitted and folded; a request not chosen is never built.
   */
  readonly only?: (dispatch: { readonly turn: number; readonly step: number; readonly dispatchSeq: number }) => boolean;
}

/** An admitted log: an `EventLog` with the agent's rules as is, raw events admitted exactly as on load. */
function admitted(events: EventLog | Iterable<LogEvent>, registry: EventRegistry | undefined): EventLog {
  if (!(events instanceof EventLog)) return EventLog.from(registry ?? createAgentRegistry(), events);
  try {
    events.ruleState(loopAdmission);
  } catch (cause) {
    throw new AgentError("AGENT_RECONSTRUCTION", "the log's registry lacks the agent's events: create it with createAgentRegistry()", { cause });
  }
  return events;
}

/**
 * Rebuilds the dispatched loop requests from the log alone, in dispatch order, one at a time: the
 * one request projection the live loop uses (surface and header) is folded through each
 * `request/dispatch`. Raw events are admitted first with the same rules as loading a log, so a log the
 * loop could not have written is refused, not rebuilt. Each request is yielded once its step ended (or
 * the log did), so it can say whether it was sent. With an attachment store, every image a request
 * references is read and verified before the request is yielded. Memory stays that of one request.
 */
export async function* reconstructRequestStream(
  events: EventLog | Iterable<LogEvent>,
  options: ReconstructOptions = {},
): AsyncGenerator<ReconstructedRequest> {
  const verified = new Set<string>();
  const freezer = new RequestFreezer();
  let fold: RequestFold = emptyRequestFold;
  let waiting: Omit<ReconstructedRequest, "sent"> | undefined;
  const finish = async (sent: boolean): Promise<ReconstructedRequest> => {
    const done = { ...waiting!, sent };
    waiting = undefined;
    if (options.attachments !== undefined) await verifyAttachments(done.request, options.attachments, verified);
    return done;
  };
  for (const event of admitted(events, options.registry)) {
    if (waiting !== undefined && stepEndEvent.is(event) && event.data.turn === waiting.turn && event.data.step === waiting.step) {
      yield await finish(event.data.unsent !== true);
    }
    fold = foldRequestEvent(fold, event);
    const dispatch = fold.dispatch;
    if (dispatch === undefined) continue;
    // Admission opens no step before the last one ended, so no request is still waiting here.
    const { turn, step, dispatchSeq, snapshot, previousResponseId } = dispatch;
    if (options.only !== undefined && !options.only({ turn, step, dispatchSeq })) continue;
    waiting = { turn, step, dispatchSeq, snapshot, request: buildLoopRequest(dispatch.messages, snapshot.header, { previousResponseId, freezer }) };
  }
  // A step the log never ended (it stops inside it: a crash) may have sent its request.
  if (waiting !== undefined) yield await finish(true);
}

/** Every dispatched loop request, rebuilt ({@link reconstructRequestStream}, collected). */
export async function reconstructRequests(events: EventLog | Iterable<LogEvent>, options: ReconstructOptions = {}): Promise<ReconstructedRequest[]> {
  const requests: ReconstructedRequest[] = [];
  for await (const request of reconstructRequestStream(events, options)) requests.push(request);
  return requests;
}

async function verifyAttachments(request: FrozenGenerateOptions, store: AttachmentStore, verified: Set<string>): Promise<void> {
  for (const ref of messageImages(request.messages)) {
    const key = JSON.stringify(ref);
    if (verified.has(key)) continue;
    await readImage(store, ref);
    verified.add(key);
  }
}
