import { readImage, type AttachmentStore } from "dsh-attachments";
import { requestHeaderEvent, type RequestHeaderSnapshot } from "dsh-header";
import type { FrozenGenerateOptions, Message } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { deriveEventMessage, isSurfaceEvent, surfaceAdmission } from "dsh-surface";
import { AgentError } from "./errors.js";
import { requestDispatchEvent } from "./events.js";
import { buildLoopRequest } from "./request.js";

/** One dispatched loop request, rebuilt from the log. */
export interface ReconstructedRequest {
  readonly turn: number;
  readonly step: number;
  /** The seq of the step's `request/dispatch`: the request is the fold of the log before it. */
  readonly dispatchSeq: number;
  /** The header snapshot the request carried. */
  readonly snapshot: RequestHeaderSnapshot;
  readonly request: FrozenGenerateOptions;
}

/** Options of {@link reconstructRequests}. */
export interface ReconstructOptions {
  /** When given, every referenced image is read and verified; a missing or corrupt one throws. */
  readonly attachments?: AttachmentStore;
}

/**
 * Rebuilds every dispatched loop request from the log alone, in dispatch order, by folding the
 * public projections: surface admission with {@link deriveEventMessage}, and the latest
 * `request/header` snapshot (what `foldRequestHeader` selects), through the loop's own builder.
 */
export async function reconstructRequests(
  events: Iterable<LogEvent>,
  options: ReconstructOptions = {},
): Promise<ReconstructedRequest[]> {
  let surface = surfaceAdmission.initial();
  let snapshot: RequestHeaderSnapshot | undefined;
  const bySeq = new Map<number, LogEvent>();
  const projected = new Map<number, Message>();
  const requests: ReconstructedRequest[] = [];
  for (const event of events) {
    surface = surfaceAdmission.admit(surface, event);
    if (isSurfaceEvent(event)) bySeq.set(event.seq, event);
    if (requestHeaderEvent.is(event)) snapshot = event.data;
    if (!requestDispatchEvent.is(event)) continue;
    if (snapshot === undefined) {
      throw new AgentError("AGENT_RECONSTRUCTION", `request/dispatch at seq ${event.seq} has no request/header before it`);
    }
    const messages = surface.nodes.toArray().map((node) => {
      let message = projected.get(node.seq);
      if (message === undefined) {
        const source = bySeq.get(node.seq);
        if (source === undefined || !isSurfaceEvent(source)) {
          throw new AgentError("AGENT_RECONSTRUCTION", `surface node ${node.seq} is not in the log`);
        }
        message = deriveEventMessage(source);
        projected.set(node.seq, message);
      }
      return message;
    });
    const { turn, step } = event.data;
    requests.push({ turn, step, dispatchSeq: event.seq, snapshot, request: buildLoopRequest(messages, snapshot.header) });
  }
  if (options.attachments !== undefined) await verifyAttachments(requests, options.attachments);
  return requests;
}

async function verifyAttachments(requests: readonly ReconstructedRequest[], store: AttachmentStore): Promise<void> {
  const seen = new Set<string>();
  for (const { request } of requests) {
    for (const message of request.messages) {
      if (message.role === "system") continue;
      for (const block of message.content) {
        if (block.type !== "image") continue;
        const key = JSON.stringify(block.image);
        if (seen.has(key)) continue;
        seen.add(key);
        await readImage(store, block.image);
      }
    }
  }
}
