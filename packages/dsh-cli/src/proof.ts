import type { KeyObject } from "node:crypto";
import { reconstructRequestStream, createAgentRegistry, stepEndEvent, type ReconstructedRequest } from "dsh-agent";
import { MemoryAttachmentStore, type AttachmentStore } from "dsh-attachments";
import { chainGenesis, headSignatureProblem, lineDigest, nextLink, type EventLog, type SignedHead, type StoredLines } from "dsh-log";
import { loadSessionLines } from "dsh-log/store";
import { z } from "zod";
import { CliError, EXIT } from "./cli-error.js";
import { wireBody, wireSha256 } from "./providers.js";

const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);

/** Zod schema of a one-request proof, as `dsh prove` writes it. */
export const proofSchema = z.strictObject({
  format: z.literal("dsh-proof"),
  version: z.literal(2),
  session: z.strictObject({
    sessionId: z.string().min(1),
    createdAt: z.number().int().nonnegative(),
    parent: z.strictObject({ sessionId: z.string().min(1), seedLength: z.number().int().nonnegative() }).exactOptional(),
  }),
  request: z.strictObject({ seq: z.number().int().nonnegative(), provider: z.string(), model: z.string(), wireSha256: HEX64 }),
  /**
   * The session's stored lines from seq 0 through the `step/end` of the request's step (what the
   * request is rebuilt from, and what the log says of its fate), or through the head when the head
   * was signed before that step ended.
   */
  lines: z.array(z.string()).min(1),
  /** The SHA-256 of each later line up to the signed head: enough to reach it, without their content. */
  after: z.array(HEX64),
  head: z.strictObject({
    format: z.literal("dsh-head"),
    version: z.literal(1),
    sessionId: z.string(),
    events: z.number().int().nonnegative(),
    head: HEX64,
    time: z.number().int().nonnegative(),
    keyId: z.string(),
    signature: z.string(),
  }),
  /** The attachment objects the request's wire bytes hold (their SHA-256 in hex, their bytes in base64). */
  objects: z.record(HEX64, z.string()),
});

/** A proof that dsh sent the request dispatched at one seq, as logged and covered by a signed head. */
export type Proof = z.output<typeof proofSchema>;

/**
 * What the log a proof carries says of its request: `sent` (its step ended, and an attempt may have
 * left the process), `unsent` (its step ended before any byte left: never proved), or `open` (the
 * signed head covers no end of its step: the writer stopped, or its witness did, while it was in flight).
 */
export type RequestFate = "sent" | "unsent" | "open";

const refuse = (why: string) => new CliError(`proof refused: ${why}`, EXIT.unverified);

/** An attachment store that remembers every object read through it. */
function recording(inner: AttachmentStore | undefined, read: Map<string, Uint8Array>): AttachmentStore | undefined {
  if (inner === undefined) return undefined;
  return {
    put: (bytes) => inner.put(bytes),
    has: (digest) => inner.has(digest),
    get: async (digest) => {
      const bytes = await inner.get(digest);
      read.set(digest.replace(/^sha256:/, ""), bytes);
      return bytes;
    },
  };
}

/** Whether the log has the `step/end` of the step that dispatched at `seq` (the first step end after it: no step opens before the last one ended). */
function stepEnded(log: EventLog, seq: number): boolean {
  for (let at = seq + 1; at < log.length; at++) if (stepEndEvent.is(log.get(at)!)) return true;
  return false;
}

/** The request dispatched at `seq`, rebuilt from `lines`, and what those lines say of its fate. */
async function rebuiltRequest(info: Proof["session"], lines: readonly string[], seq: number): Promise<{ rebuilt: ReconstructedRequest; fate: RequestFate }> {
  const log = loadSessionLines(info, lines, { registry: createAgentRegistry() });
  for await (const rebuilt of reconstructRequestStream(log, { only: (dispatch) => dispatch.dispatchSeq === seq })) {
    return { rebuilt, fate: !stepEnded(log, seq) ? "open" : rebuilt.sent ? "sent" : "unsent" };
  }
  throw new CliError(`seq ${seq} of session ${info.sessionId} is not where a request was dispatched (dsh requests LOG lists them)`, EXIT.usage);
}

/** A rebuilt request's exact wire body, with its provider and model. */
async function wireOf(rebuilt: ReconstructedRequest, attachments: AttachmentStore | undefined): Promise<{ body: string; provider: string; model: string }> {
  return { body: await wireBody(rebuilt, attachments), provider: rebuilt.request.config.provider, model: rebuilt.request.config.model };
}

/** The type of the event a stored line holds, read without admitting it. */
function lineType(line: string): unknown {
  return (JSON.parse(line) as { type?: unknown }).type;
}

/**
 * Builds the proof of the request dispatched at `seq`: the lines through its step's end, the digests
 * of the later lines up to the first witnessed head the log still matches that covers that end (else
 * the last one past `seq`), and that head. A log whose chain is broken before that head, no such
 * head, or a request whose step ended unsent (it never left the process) is refused.
 */
export async function buildProof(stored: StoredLines, seq: number, heads: readonly SignedHead[], attachments: AttachmentStore | undefined): Promise<Proof> {
  const { info } = stored;
  if (!stored.chained) throw refuse(`session ${info.sessionId} was written before hash chains`);
  const candidates = heads.filter((head) => head.sessionId === info.sessionId && head.events > seq);
  const lines: string[] = [];
  const after: string[] = [];
  let link = chainGenesis(info);
  let events = 0;
  /** The seq of the request's step end, once read. */
  let stepEnd: number | undefined;
  let chosen: SignedHead | undefined;
  for await (const { line, link: kept } of stored.lines) {
    const digest = lineDigest(line);
    link = nextLink(link, digest);
    if (kept === undefined || !kept.equals(link)) throw refuse(`seq ${events} breaks the chain (dsh verify says more)`);
    if (stepEnd === undefined) lines.push(line);
    else after.push(digest.toString("hex"));
    if (events > seq && stepEnd === undefined && lineType(line) === "step/end") stepEnd = events;
    events++;
    const head = candidates.find((candidate) => candidate.events === events && candidate.head === link.toString("hex"));
    if (head === undefined) continue;
    chosen = head;
    if (stepEnd !== undefined) break;
  }
  if (chosen === undefined) {
    if (events <= seq) throw new CliError(`session ${info.sessionId} has ${events} events: there is no seq ${seq}`, EXIT.usage);
    throw refuse(`no head in the witness covers seq ${seq} of session ${info.sessionId} and matches the log (run dsh verify with the witness)`);
  }
  const proved = lines.slice(0, chosen.events);
  const read = new Map<string, Uint8Array>();
  const session = { sessionId: info.sessionId, createdAt: info.createdAt, ...(info.parent === undefined ? {} : { parent: info.parent }) };
  const { rebuilt, fate } = await rebuiltRequest(session, proved, seq);
  if (fate === "unsent") throw new CliError(`the request dispatched at seq ${seq} was never sent (its step ended before any byte left the process): there is nothing to prove`, EXIT.usage);
  const wire = await wireOf(rebuilt, recording(attachments, read));
  const objects = Object.fromEntries([...read].map(([digest, bytes]) => [digest, Buffer.from(bytes).toString("base64")]));
  return {
    format: "dsh-proof",
    version: 2,
    session,
    request: { seq, provider: wire.provider, model: wire.model, wireSha256: wireSha256(wire.body) },
    lines: proved,
    after: after.slice(0, chosen.events - proved.length),
    head: chosen,
    objects,
  };
}

/** What a verified proof shows, for its one-line report. */
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

/** Whether `value` is a proof of the first format, which did not carry its request's fate. */
function firstFormat(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as { format?: unknown }).format === "dsh-proof" && (value as { version?: unknown }).version === 1;
}

/**
 * Checks a proof on its own with the writer's public key: the head's signature, the chain from the
 * session's identity through the lines and the later digests to that head, the request rebuilt from
 * the lines (with the objects the proof carries) to the wire hash it states, and what the lines say of
 * its fate: they must reach its step's end (or the head), and a step that ended unsent is refused.
 * Any difference is a {@link CliError} with exit code 6 naming the check that failed.
 */
export async function checkProof(value: unknown, publicKey: KeyObject | readonly KeyObject[]): Promise<ProofSummary> {
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
  let found: Awaited<ReturnType<typeof rebuiltRequest>>;
  try {
    found = await rebuiltRequest(session, lines, request.seq);
  } catch (error) {
    throw refuse(`the request cannot be rebuilt from the proof: ${(error as Error).message}`);
  }
  const { rebuilt, fate } = found;
  if (fate === "open" && after.length > 0) throw refuse(`the proof's lines stop before the step of the request at seq ${request.seq} ended, though the head covers more: what the log says of its fate is left out`);
  if (fate === "unsent") throw refuse(`the log says the request at seq ${request.seq} was never sent: its step ended before any byte left the process`);
  let wire: Awaited<ReturnType<typeof wireOf>>;
  try {
    wire = await wireOf(rebuilt, attachments);
  } catch (error) {
    throw refuse(`the request cannot be rebuilt from the proof: ${(error as Error).message}`);
  }
  const rebuiltSha256 = wireSha256(wire.body);
  if (rebuiltSha256 !== request.wireSha256) throw refuse(`the request rebuilt from the proof's lines has wire sha256 ${rebuiltSha256}, not the ${request.wireSha256} it states`);
  return { sessionId: session.sessionId, seq: request.seq, provider: wire.provider, model: wire.model, wireSha256: rebuiltSha256, fate, headEvents: head.events, signedAt: head.time, keyId: head.keyId };
}
