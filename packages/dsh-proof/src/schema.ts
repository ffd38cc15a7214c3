import { z } from "zod";

const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);

/** Zod schema of a one-request proof (format `dsh-proof`, version 2), as {@link proveRequest} makes it. */
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
