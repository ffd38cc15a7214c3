export { proveRequest } from "./prove.js";
export { describeProof, verifyProof, type ProofSummary } from "./verify-proof.js";
export { proofSchema, type Proof } from "./schema.js";
export type { RequestFate } from "./rebuilt.js";
export { ProofError, type ProofErrorCode } from "./errors.js";
