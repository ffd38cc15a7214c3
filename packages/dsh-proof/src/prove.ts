import type { AttachmentStore } from "dsh-attachments";
import { chainGenesis, lineDigest, nextLink, type SignedHead, type StoredLines } from "dsh-log";
import { wireSha256 } from "dsh-wire";
import { ProofError } from "./errors.js";
import { rebuiltRequest, sentBody } from "./rebuilt.js";
import type { Proof } from "./schema.js";

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

/** The type of the event a stored line holds, read without admitting it. */
function lineType(line: string): unknown {
  return (JSON.parse(line) as { type?: unknown }).type;
}

/**
 * Proves the request dispatched at `seq` of a stored session (`store.readLines(id)`, or
 * `readJsonlLines(path)`): the lines through its step's end, the digests of the later lines up to the
 * first signed head of `heads` the log still matches that covers that end (else the last one past
 * `seq`), that head, and the image objects its wire bytes hold. A session written before chains, a
 * broken chain or no such head is `PROOF_UNBACKED`; no request at `seq` `PROOF_NOT_A_DISPATCH`; a
 * request whose step ended unsent (it never left the process) `PROOF_UNSENT`.
 */
export async function proveRequest(stored: StoredLines, seq: number, heads: readonly SignedHead[], attachments?: AttachmentStore): Promise<Proof> {
  const { info } = stored;
  if (!stored.chained) throw new ProofError("PROOF_UNBACKED", `session ${info.sessionId} was written before hash chains`);
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
    if (kept === undefined || !kept.equals(link)) throw new ProofError("PROOF_UNBACKED", `seq ${events} breaks the chain (dsh verify says more)`);
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
    if (events <= seq) throw new ProofError("PROOF_NOT_A_DISPATCH", `session ${info.sessionId} has ${events} events: there is no seq ${seq}`);
    throw new ProofError("PROOF_UNBACKED", `no head in the witness covers seq ${seq} of session ${info.sessionId} and matches the log (run dsh verify with the witness)`);
  }
  const proved = lines.slice(0, chosen.events);
  const read = new Map<string, Uint8Array>();
  const session = { sessionId: info.sessionId, createdAt: info.createdAt, ...(info.parent === undefined ? {} : { parent: info.parent }) };
  const { rebuilt, fate } = await rebuiltRequest(session, proved, seq);
  if (fate === "unsent") throw new ProofError("PROOF_UNSENT", `the request dispatched at seq ${seq} was never sent (its step ended before any byte left the process): there is nothing to prove`);
  const wire = await sentBody(rebuilt, recording(attachments, read));
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
