import { readImage, type AttachmentStore } from "dsh-attachments";
import type { RequestHeaderSnapshot } from "dsh-header";
import { messageImages, type FrozenGenerateOptions } from "dsh-llm";
import { EventLog, type EventRegistry, type LogEvent } from "dsh-log";
import { createAgentRegistry } from "./register.js";
import { buildLoopRequest, emptyRequestFold, foldRequestEvent, type RequestFold } from "./request.js";
import { loopAdmission } from "./loop-rule.js";
import { AgentError } from "./errors.js";

/** One dispatched loop request, rebuilt from the log. */
export interface ReconstructedRequest {
  readonly turn: number;
  readonly step: number;
  /** The seq of the step's `request/dispatch`: the request is the fold of the log up to it. */
  readonly dispatchSeq: number;
  /** The header snapshot the request carried. */
  readonly snapshot: RequestHeaderSnapshot;
  readonly request: FrozenGenerateOptions;
}

/** Options of {@link reconstructRequests}. */
export interface ReconstructOptions {
  /** When given, every referenced image is read and verified; a missing or corrupt one throws. */
  readonly attachments?: AttachmentStore;
  /** The registry raw events are admitted with (default `createAgentRegistry()`); ignored for an `EventLog`. */
  readonly registry?: EventRegistry;
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
 * loop could not have written is refused, not rebuilt. With an attachment store, every image a request
 * references is read and verified before the request is yielded. Memory stays that of one request.
 */
export async function* reconstructRequestStream(
  events: EventLog | Iterable<LogEvent>,
  options: ReconstructOptions = {},
): AsyncGenerator<ReconstructedRequest> {
  const verified = new Set<string>();
  let fold: RequestFold = emptyRequestFold;
  for (const event of admitted(events, options.registry)) {
    fold = foldRequestEvent(fold, event);
    const dispatch = fold.dispatch;
    if (dispatch === undefined) continue;
    const { turn, step, dispatchSeq, snapshot, messages } = dispatch;
    const request = buildLoopRequest(messages, snapshot.header);
    if (options.attachments !== undefined) await verifyAttachments(request, options.attachments, verified);
    yield { turn, step, dispatchSeq, snapshot, request };
  }
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
