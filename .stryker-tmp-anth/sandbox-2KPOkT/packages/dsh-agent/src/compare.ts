import { isAgentLoopRequest, type FrozenGenerateOptions } from "dsh-llm";
import type { EventLog, LogEvent } from "dsh-log";
import { reconstructRequestStream, type ReconstructOptions } from "./reconstruct.js";

/** Options of {@link compareRequests}. */
export interface CompareOptions extends ReconstructOptions {
  /** Compare only the requests dispatched at or after this seq (the log's length when your process opened it). */
  readonly fromSeq?: number;
}

/** Where the requests rebuilt from a log and the ones sent part ways. */
export interface RequestDifference {
  /** The position among the compared requests. */
  readonly index: number;
  /** The rebuilt request's turn and step (absent when the log has fewer requests than were sent). */
  readonly turn?: number;
  readonly step?: number;
  /** The first differing field as a path (`messages[3].content[0].text`), or what is missing. */
  readonly detail: string;
}

/** The outcome of {@link compareRequests}. */
export interface RequestComparison {
  /** Whether every sent request is the rebuilt one at its place, and none is left over on either side. */
  readonly same: boolean;
  /** How many requests were compared. */
  readonly compared: number;
  readonly difference?: RequestDifference;
}

/**
 * Compares the agent-loop requests that were sent (as an `llm/stream` listener sees them) with the
 * requests rebuilt from the log, in order: a retry's resend of the same request counts once, requests
 * other than the loop's (a compaction summary) are left out, and a rebuilt request the log says never
 * left the process may be missing from `sent`. The request's cancel `signal` is not part of it.
 */
export async function compareRequests(
  events: EventLog | Iterable<LogEvent>,
  sent: Iterable<FrozenGenerateOptions>,
  options: CompareOptions = {},
): Promise<RequestComparison> {
  const queue = distinctLoopRequests(sent);
  let next = 0;
  let compared = 0;
  for await (const rebuilt of reconstructRequestStream(events, options)) {
    if (rebuilt.dispatchSeq < (options.fromSeq ?? 0)) continue;
    const candidate = queue[next];
    const where = { index: compared, turn: rebuilt.turn, step: rebuilt.step };
    if (candidate === undefined) {
      if (!rebuilt.sent) continue;
      return { same: false, compared, difference: { ...where, detail: "the log has a request that was not sent" } };
    }
    const path = firstDifference(withoutSignal(rebuilt.request), withoutSignal(candidate), "");
    if (path !== undefined) {
      if (!rebuilt.sent) continue;
      return { same: false, compared, difference: { ...where, detail: path } };
    }
    next += 1;
    compared += 1;
  }
  if (next < queue.length) return { same: false, compared, difference: { index: compared, detail: "a request was sent that the log does not have" } };
  return { same: true, compared };
}

function distinctLoopRequests(sent: Iterable<FrozenGenerateOptions>): FrozenGenerateOptions[] {
  const requests: FrozenGenerateOptions[] = [];
  for (const request of sent) if (isAgentLoopRequest(request) && requests.at(-1) !== request) requests.push(request);
  return requests;
}

function withoutSignal({ signal: _signal, ...rest }: FrozenGenerateOptions): unknown {
  return rest;
}

/** The path of the first place where `a` and `b` differ as JSON (key order included), or `undefined`. */
export function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      const found = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  for (let i = 0; i < Math.max(aKeys.length, bKeys.length); i += 1) {
    const key = aKeys[i] ?? bKeys[i]!;
    const child = path === "" ? key : `${path}.${key}`;
    if (aKeys[i] !== bKeys[i]) return `${child} (keys differ in name or order)`;
    const found = firstDifference((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], child);
    if (found !== undefined) return found;
  }
  return undefined;
}
