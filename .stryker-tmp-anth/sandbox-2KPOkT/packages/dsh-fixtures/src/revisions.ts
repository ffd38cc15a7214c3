import type { ReconstructedRequest } from "dsh-agent";
import { jsonEquals, type JsonValue, type ToolSchema } from "dsh-llm";
import { FixtureError } from "./errors.js";
import type { HeaderRef } from "./manifest.js";

/** What the model was offered besides the conversation: the rendered system prompt and the tool schemas. */
export interface Revision {
  readonly id: string;
  readonly prompt: string;
  readonly tools: readonly ToolSchema[];
}

/** The revisions of a session and the revision of each of its header snapshots. */
export interface RevisionMap {
  readonly revisions: readonly Revision[];
  readonly headers: readonly HeaderRef[];
}

/** The system prompt a request carries: surface node 0. */
export function promptOf(request: ReconstructedRequest): string {
  const first = request.request.messages[0];
  return first?.role === "system" ? first.content : "";
}

function sameRevision(revision: Revision, prompt: string, tools: readonly ToolSchema[]): boolean {
  return revision.prompt === prompt && jsonEquals(revision.tools as unknown as JsonValue, tools as unknown as JsonValue);
}

/**
 * The prompt-and-tools revisions of the requests dispatched at or after `fromSeq` (a fork's seed is
 * history, not replayed). A header snapshot opens a new revision when there is none yet or when its
 * first request's prompt or tools differ from the current one: in practice the `initial` snapshot and
 * real changes; a `series` snapshot keeps the current revision. `headerSeqs` are the seqs of the
 * log's `request/header` events.
 */
export function deriveRevisions(requests: readonly ReconstructedRequest[], headerSeqs: readonly number[], fromSeq: number): RevisionMap {
  const revisions: Revision[] = [];
  const headers: HeaderRef[] = [];
  let current: Revision | undefined;
  let next = 0;
  for (const request of requests) {
    if (request.dispatchSeq < fromSeq) continue;
    const prompt = promptOf(request);
    const tools = request.snapshot.header.tools ?? [];
    let headerSeq: number | undefined;
    while (next < headerSeqs.length && headerSeqs[next]! < request.dispatchSeq) headerSeq = headerSeqs[next++];
    if (headerSeq !== undefined && headerSeq >= fromSeq) {
      if (current === undefined || !sameRevision(current, prompt, tools)) {
        current = { id: `r${revisions.length + 1}`, prompt, tools };
        revisions.push(current);
      }
      headers.push({ seq: headerSeq, reason: request.snapshot.reason, revision: current.id });
    } else if (current === undefined || !sameRevision(current, prompt, tools)) {
      // The loop writes a snapshot whenever tools change and a series after every surface replace (a prompt change included).
      throw new FixtureError("FIXTURE_INVALID", `request at seq ${request.dispatchSeq} changes the prompt or tools without a header snapshot of its own`);
    }
  }
  return { revisions, headers };
}

/** The revision each request (by `turn.step`) uses, from the manifest's header list. */
export function revisionByStep(requests: readonly ReconstructedRequest[], headers: readonly Pick<HeaderRef, "seq" | "revision">[]): Map<string, string> {
  const byStep = new Map<string, string>();
  let next = 0;
  let revision: string | undefined;
  for (const request of requests) {
    while (next < headers.length && headers[next]!.seq < request.dispatchSeq) revision = headers[next++]!.revision;
    if (revision !== undefined) byStep.set(stepKey(request.turn, request.step), revision);
  }
  return byStep;
}

/** The key of a step in the maps replay reads: `turn.step`. */
export function stepKey(turn: number, step: number): string {
  return `${turn}.${step}`;
}
