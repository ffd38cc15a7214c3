import { createAgentRegistry, reconstructRequestStream, stepEndEvent, type ReconstructedRequest } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { EventLog } from "dsh-log";
import { loadSessionLines } from "dsh-log/store";
import { wireBody } from "dsh-wire";
import { ProofError } from "./errors.js";
import type { Proof } from "./schema.js";

/**
 * What the log a proof carries says of its request: `sent` (its step ended, and an attempt may have
 * left the process), `unsent` (its step ended before any byte left: never proved), or `open` (the
 * signed head covers no end of its step: the writer stopped, or its witness did, while it was in flight).
 */
export type RequestFate = "sent" | "unsent" | "open";

/** Whether the log has the `step/end` of the step that dispatched at `seq` (the first step end after it: no step opens before the last one ended). */
function stepEnded(log: EventLog, seq: number): boolean {
  for (let at = seq + 1; at < log.length; at++) if (stepEndEvent.is(log.get(at)!)) return true;
  return false;
}

/** The request dispatched at `seq`, rebuilt from `lines` (admitted as a load admits them), and what those lines say of its fate. */
export async function rebuiltRequest(info: Proof["session"], lines: readonly string[], seq: number): Promise<{ rebuilt: ReconstructedRequest; fate: RequestFate }> {
  const log = loadSessionLines(info, lines, { registry: createAgentRegistry() });
  for await (const rebuilt of reconstructRequestStream(log, { only: (dispatch) => dispatch.dispatchSeq === seq })) {
    return { rebuilt, fate: !stepEnded(log, seq) ? "open" : rebuilt.sent ? "sent" : "unsent" };
  }
  throw new ProofError("PROOF_NOT_A_DISPATCH", `seq ${seq} of session ${info.sessionId} is not where a request was dispatched`);
}

/** A rebuilt request's exact wire body, with its provider and model. */
export async function sentBody(rebuilt: ReconstructedRequest, attachments: AttachmentStore | undefined): Promise<{ body: string; provider: string; model: string }> {
  return { body: await wireBody(rebuilt, attachments), provider: rebuilt.request.config.provider, model: rebuilt.request.config.model };
}
