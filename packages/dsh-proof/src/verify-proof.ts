import type { KeyObject } from "node:crypto";
import { MemoryAttachmentStore } from "dsh-attachments";
import { chainGenesis, headSignatureProblem, lineDigest, nextLink } from "dsh-log";
import { wireSha256 } from "dsh-wire";
import { ProofError } from "./errors.js";
import { rebuiltRequest, sentBody, type RequestFate } from "./rebuilt.js";
import { proofSchema } from "./schema.js";

/** What a verified proof shows. */
export interface ProofSummary {
  readonly sessionId: string;
  readonly seq: number;
  readonly provider: string;
  readonly model: string;
  readonly wireSha256: string;
  /** What the proof's lines say of the request: it was sent, or its step is still open where the head was signed. */
  readonly fate: Exclude<RequestFate, "unsent">;
  readonly headEvents: number;
  readonly signedAt: number;
  readonly keyId: string;
}

const refuse = (why: string) => new ProofError("PROOF_REFUSED", why);

/** Whether `value` is a proof of the first format, which did not carry its request's fate. */
function firstFormat(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { format?: unknown }).format === "dsh-proof" && (value as { version?: unknown }).version === 1;
}

/**
 * Checks a proof on its own with the writer's public key (or keys, when keys were rotated): the head's
 * signature, the chain from the session's identity through the lines and the later digests to that
 * head, the request rebuilt from the lines (with the objects the proof carries) to the wire hash it
 * states, and what the lines say of its fate: they must reach its step's end (or the head), and a step
 * that ended unsent is refused. Any difference is `PROOF_REFUSED`, naming the check that failed.
 */
export async function verifyProof(value: unknown, publicKey: KeyObject | readonly KeyObject[]): Promise<ProofSummary> {
  if (firstFormat(value)) throw refuse("the proof is of format version 1, which does not carry what the log says of the request's fate: prove the request again with this dsh");
  const parsed = proofSchema.safeParse(value);
  if (!parsed.success) throw refuse("the file is not a dsh proof (format dsh-proof, version 2)");
  const proof = parsed.data;
  const { session, request, lines, after, head } = proof;
  const signature = headSignatureProblem(head, publicKey);
  if (signature !== undefined) throw refuse(`the signed head ${signature}`);
  if (head.sessionId !== session.sessionId) throw refuse(`the signed head is of session ${head.sessionId}, not ${session.sessionId}`);
  if (request.seq >= lines.length) throw refuse(`the request is at seq ${request.seq}, but the proof's lines end at seq ${lines.length - 1}`);
  if (lines.length + after.length !== head.events) throw refuse(`the proof reaches ${lines.length + after.length} events, but the head was signed at ${head.events}`);
  let link = chainGenesis(session);
  for (const line of lines) link = nextLink(link, lineDigest(line));
  for (const digest of after) link = nextLink(link, Buffer.from(digest, "hex"));
  if (link.toString("hex") !== head.head) throw refuse("the lines and digests do not chain to the signed head: the proof was altered");
  const attachments = new MemoryAttachmentStore();
  for (const [digest, base64] of Object.entries(proof.objects)) {
    const stored = await attachments.put(Buffer.from(base64, "base64"));
    if (stored.replace(/^sha256:/, "") !== digest) throw refuse(`the object named ${digest} holds other bytes`);
  }
  const rebuildOrRefuse = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw refuse(`the request cannot be rebuilt from the proof: ${(error as Error).message}`);
    }
  };
  const { rebuilt, fate } = await rebuildOrRefuse(() => rebuiltRequest(session, lines, request.seq));
  if (fate === "open" && after.length > 0) throw refuse(`the proof's lines stop before the step of the request at seq ${request.seq} ended, though the head covers more: what the log says of its fate is left out`);
  if (fate === "unsent") throw refuse(`the log says the request at seq ${request.seq} was never sent: its step ended before any byte left the process`);
  const wire = await rebuildOrRefuse(() => sentBody(rebuilt, attachments));
  const rebuiltSha256 = wireSha256(wire.body);
  if (rebuiltSha256 !== request.wireSha256) throw refuse(`the request rebuilt from the proof's lines has wire sha256 ${rebuiltSha256}, not the ${request.wireSha256} it states`);
  return { sessionId: session.sessionId, seq: request.seq, provider: wire.provider, model: wire.model, wireSha256: rebuiltSha256, fate, headEvents: head.events, signedAt: head.time, keyId: head.keyId };
}

/** A verified proof in one line, as `dsh verify-proof` prints it: the session, the request and its fate, its wire hash, and the signed head. */
export function describeProof(summary: ProofSummary): string {
  const fate = summary.fate === "sent" ? "was sent" : "was in flight where the head was signed (its step had not ended: it may not have left)";
  return `proof verified: session ${summary.sessionId}, the request dispatched at seq ${summary.seq} (${summary.provider} ${summary.model}) ${fate} with wire sha256 ${summary.wireSha256}; covered by the head signed at ${summary.headEvents} events by key ${summary.keyId} on ${new Date(summary.signedAt).toISOString()}`;
}
