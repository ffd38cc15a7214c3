import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-proof` throws. */
export type ProofErrorCode =
  /** No request was dispatched at the seq asked for (or the session has no such seq). */
  | "PROOF_NOT_A_DISPATCH"
  /** The request's step ended unsent: it never left the process, so there is nothing to prove. */
  | "PROOF_UNSENT"
  /** The session cannot back a proof: written before hash chains, its chain broken, or no signed head of the witness covers the request and matches. */
  | "PROOF_UNBACKED"
  /** A proof did not hold: not a proof, an altered line, digest, head or object, a request rebuilt to another hash, a fate left out or unsent. */
  | "PROOF_REFUSED";

/** A proof that cannot be made or does not hold; `code` says which, the message why. */
export class ProofError extends DshError<ProofErrorCode> {
  override name = "ProofError";
}
