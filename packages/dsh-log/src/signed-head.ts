import { createHash, createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { describeIssues } from "dsh-base";
import { z } from "zod";
import type { ChainHead } from "./chain.js";
import { LogError } from "./errors.js";

/** Zod schema of a signed head as a witness stores it (one JSON line each). */
export const signedHeadSchema = z.strictObject({
  format: z.literal("dsh-head"),
  version: z.literal(1),
  sessionId: z.string().min(1),
  events: z.number().int().nonnegative(),
  head: z.string().regex(/^[0-9a-f]{64}$/),
  time: z.number().int().nonnegative(),
  keyId: z.string().regex(/^[0-9a-f]{16}$/),
  signature: z.string().min(1),
});

/** A chain head signed with Ed25519: which session, after how many events, its last link, when, and by which key. */
export type SignedHead = z.output<typeof signedHeadSchema>;

/** The bytes a head's signature covers. */
function signedBytes(head: ChainHead, time: number): Buffer {
  return Buffer.from(`dsh-head/1\n${JSON.stringify({ sessionId: head.sessionId, events: head.events, head: head.head, time })}`);
}

/** A short id of a public key (or of a private key's public half): the first 16 hex digits of the SHA-256 of its SPKI bytes. */
export function keyIdOf(key: KeyObject): string {
  const publicKey = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest("hex").slice(0, 16);
}

/** Signs where a chain stands with an Ed25519 private key. */
export function signHead(head: ChainHead, privateKey: KeyObject, time: number = Date.now()): SignedHead {
  const signature = sign(null, signedBytes(head, time), privateKey).toString("base64");
  return { format: "dsh-head", version: 1, sessionId: head.sessionId, events: head.events, head: head.head, time, keyId: keyIdOf(privateKey), signature };
}

/**
 * Why `signed` is not a head signed by `publicKey` (or by one of several keys, when keys were rotated):
 * another key, or a signature that does not match its fields; `undefined` when it is.
 */
export function headSignatureProblem(signed: SignedHead, publicKey: KeyObject | readonly KeyObject[]): string | undefined {
  const keys = Array.isArray(publicKey) ? (publicKey as readonly KeyObject[]) : [publicKey as KeyObject];
  const key = keys.find((candidate) => keyIdOf(candidate) === signed.keyId);
  if (key === undefined) {
    const given = keys.map(keyIdOf);
    return given.length === 1 ? `it is signed by key ${signed.keyId}, not by the given key ${given[0]}` : `it is signed by key ${signed.keyId}, none of the given keys ${given.join(", ")}`;
  }
  const valid = verify(null, signedBytes(signed, signed.time), key, Buffer.from(signed.signature, "base64"));
  return valid ? undefined : "its signature does not match its fields";
}

/** Reads a signed head from parsed JSON, refusing anything else with `LOG_CORRUPT` (`where` names it). */
export function parseSignedHead(value: unknown, where: string): SignedHead {
  const parsed = signedHeadSchema.safeParse(value);
  if (!parsed.success) throw new LogError("LOG_CORRUPT", `${where}: not a signed head: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

function ed25519(key: KeyObject, what: string): KeyObject {
  if (key.asymmetricKeyType !== "ed25519") throw new LogError("LOG_BAD_KEY", `${what} is a ${key.asymmetricKeyType ?? "symmetric"} key; heads are signed with Ed25519`);
  return key;
}

/** An Ed25519 private key from PKCS#8 PEM text (`openssl genpkey -algorithm ed25519`); anything else is `LOG_BAD_KEY`. */
export function signingKeyFromPem(pem: string | Buffer): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: "pem" });
  } catch (cause) {
    throw new LogError("LOG_BAD_KEY", "the signing key is not a PKCS#8 PEM private key", { cause });
  }
  return ed25519(key, "the signing key");
}

/** An Ed25519 public key from SPKI PEM text (`openssl pkey -pubout`); anything else is `LOG_BAD_KEY`. */
export function publicKeyFromPem(pem: string | Buffer): KeyObject {
  // createPublicKey would derive the public half of a private key; a verifier must never be handed one.
  if (String(pem).includes("PRIVATE KEY")) throw new LogError("LOG_BAD_KEY", "the public key file holds a private key: give its public half (openssl pkey -pubout)");
  let key: KeyObject;
  try {
    key = createPublicKey({ key: pem, format: "pem" });
  } catch (cause) {
    throw new LogError("LOG_BAD_KEY", "the public key is not a PEM public key", { cause });
  }
  return ed25519(key, "the public key");
}
