import { requestBreak, type ReconstructedRequest } from "dsh-agent";
import { describeHeaderChanges } from "dsh-header";
import { surfaceNodeLabel } from "dsh-surface";
import { jsonEquals, type JsonValue, type Message } from "dsh-llm";

/** How one surface node of a request differs from the recorded request. */
export interface NodeChange {
  readonly node: number;
  readonly change: "replaced" | "added" | "removed";
  readonly before: Message | undefined;
  readonly after: Message | undefined;
}

/** How one replayed request differs from the recorded one at the same position. */
export interface RequestDifference {
  /** 1-based position in dispatch order. */
  readonly number: number;
  readonly turn: number;
  readonly step: number;
  /** The recorded request's dispatch seq (the replayed one's when the fixture has no request there). */
  readonly dispatchSeq: number;
  /** `recorded`: the replay sent a request the fixture does not have; `replayed`: the replay never sent it. */
  readonly missing: "recorded" | "replayed" | undefined;
  /** Header differences, one line each (config, provenance, tools). */
  readonly header: readonly string[];
  readonly nodes: readonly NodeChange[];
  /** What the difference costs in prompt caching. */
  readonly cache: string;
}

const sameJson = (a: unknown, b: unknown) => jsonEquals(a as JsonValue, b as JsonValue);

/** The surface nodes (messages, system prompt first) that differ between two requests. */
export function nodeChanges(before: readonly Message[], after: readonly Message[]): NodeChange[] {
  const changes: NodeChange[] = [];
  for (let node = 0; node < Math.max(before.length, after.length); node++) {
    const b = before[node];
    const a = after[node];
    if (sameJson(b, a)) continue;
    changes.push({ node, change: b === undefined ? "added" : a === undefined ? "removed" : "replaced", before: b, after: a });
  }
  return changes;
}

/** The cache consequence of sending `after` where `before` was sent: how much of a cache the recorded requests warmed is still read. */
function cacheConsequence(before: ReconstructedRequest, after: ReconstructedRequest, nodes: readonly NodeChange[]): string {
  const b = before.request.config;
  const a = after.request.config;
  if (b.provider !== a.provider || b.model !== a.model) return "another model: no cached prefix carries over";
  if (!sameJson(before.request.tools ?? [], after.request.tools ?? [])) return "the tools differ, and they precede the messages: nothing a cache the recorded requests warmed holds is read";
  const first = nodes.find((change) => change.change !== "added");
  if (first === undefined) {
    return nodes.length === 0 ? "the prompt is the same; only call settings differ" : `the prompt extends the recorded one from node ${nodes[0]!.node}: its whole prefix is still read`;
  }
  if (first.node === 0) return "the prompt differs from node 0 (the system prompt): nothing after the tools is read from a cache the recorded requests warmed";
  return `the prompt differs from node ${first.node} (${surfaceNodeLabel(first.before!)}): a cache the recorded requests warmed is read up to node ${first.node - 1} at most`;
}

/**
 * The requests a replay sent differently from the recorded ones, position by position: header lines,
 * changed surface nodes, and the cache consequence. Equal requests are left out.
 */
export function compareRequests(recorded: readonly ReconstructedRequest[], replayed: readonly ReconstructedRequest[]): RequestDifference[] {
  const differences: RequestDifference[] = [];
  for (let i = 0; i < Math.max(recorded.length, replayed.length); i++) {
    const before = recorded[i];
    const after = replayed[i];
    const where = (before ?? after)!;
    const base = { number: i + 1, turn: where.turn, step: where.step, dispatchSeq: where.dispatchSeq };
    if (before === undefined || after === undefined) {
      const missing = before === undefined ? "recorded" : "replayed";
      const cache = missing === "recorded" ? "an extra request: one more full-price prefix read" : "a request the replay never sent";
      differences.push({ ...base, missing, header: [], nodes: [], cache });
      continue;
    }
    const sendsSame = sameJson(before.request.messages, after.request.messages) && sameJson(before.request.config, after.request.config) && sameJson(before.request.tools ?? [], after.request.tools ?? []);
    if (sendsSame) continue;
    const nodes = nodeChanges(before.request.messages, after.request.messages);
    differences.push({ ...base, missing: undefined, header: describeHeaderChanges(before.snapshot.header, after.snapshot.header), nodes, cache: cacheConsequence(before, after, nodes) });
  }
  return differences;
}

/** Why request `k` does not extend request `k - 1` (a prefix-cache break), per 1-based request number. */
export function cacheBreaks(requests: readonly ReconstructedRequest[]): Map<number, string> {
  const breaks = new Map<number, string>();
  for (let k = 1; k < requests.length; k++) {
    const reason = requestBreak(requests[k - 1]!.request, requests[k]!.request);
    if (reason !== undefined) breaks.set(k + 1, reason);
  }
  return breaks;
}
