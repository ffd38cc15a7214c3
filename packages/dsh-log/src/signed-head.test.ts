import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { headSignatureProblem, keyIdOf, publicKeyFromPem, signHead, signingKeyFromPem } from "./signed-head.js";

const pair = generateKeyPairSync("ed25519");
const privatePem = pair.privateKey.export({ type: "pkcs8", format: "pem" });
const publicPem = pair.publicKey.export({ type: "spki", format: "pem" });

describe("signed heads", () => {
  it("round-trips a head through PEM keys, the same key id from either half", () => {
    const key = signingKeyFromPem(privatePem);
    const publicKey = publicKeyFromPem(publicPem);
    expect(keyIdOf(key)).toBe(keyIdOf(publicKey));
    const signed = signHead({ sessionId: "s", events: 3, head: "ab".repeat(32) }, key, 1234);
    expect(signed).toMatchObject({ format: "dsh-head", version: 1, sessionId: "s", events: 3, time: 1234, keyId: keyIdOf(publicKey) });
    expect(headSignatureProblem(signed, publicKey)).toBeUndefined();
    // Keys rotated: any of the given keys that made the signature will do, named by key id.
    const [older, newer] = [generateKeyPairSync("ed25519").publicKey, generateKeyPairSync("ed25519").publicKey];
    expect(headSignatureProblem(signed, [older, publicKey])).toBeUndefined();
    expect(headSignatureProblem(signed, [older, newer])).toBe(`it is signed by key ${keyIdOf(publicKey)}, none of the given keys ${keyIdOf(older)}, ${keyIdOf(newer)}`);
    for (const altered of [{ ...signed, head: "cd".repeat(32) }, { ...signed, time: 1235 }, { ...signed, sessionId: "t" }, { ...signed, events: 4 }]) {
      expect(headSignatureProblem(altered, publicKey)).toBe("its signature does not match its fields");
    }
  });

  it("refuses keys that are not Ed25519, not PEM, or a private key given as the public one", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    expect(() => signingKeyFromPem(rsa.privateKey.export({ type: "pkcs8", format: "pem" }))).toThrow(expect.objectContaining({ code: "LOG_BAD_KEY", message: "the signing key is a rsa key; heads are signed with Ed25519" }));
    expect(() => signingKeyFromPem("not a key")).toThrow(expect.objectContaining({ code: "LOG_BAD_KEY", message: "the signing key is not a PKCS#8 PEM private key" }));
    expect(() => publicKeyFromPem(privatePem)).toThrow(expect.objectContaining({ code: "LOG_BAD_KEY", message: "the public key file holds a private key: give its public half (openssl pkey -pubout)" }));
    expect(() => publicKeyFromPem("nope")).toThrow(expect.objectContaining({ code: "LOG_BAD_KEY", message: "the public key is not a PEM public key" }));
    expect(() => publicKeyFromPem(rsa.publicKey.export({ type: "spki", format: "pem" }))).toThrow(expect.objectContaining({ code: "LOG_BAD_KEY", message: "the public key is a rsa key; heads are signed with Ed25519" }));
    // The parser's own words stay on the error, as its cause.
    for (const attempt of [() => signingKeyFromPem("not a key"), () => publicKeyFromPem("nope")]) {
      expect(attempt).toThrow(expect.objectContaining({ cause: expect.any(Error) }));
    }
  });
});
