import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgent, reconstructRequests } from "dsh-agent";
import { FileWitness, readJsonlLines, readWitnessFile, type SignedHead } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proveRequest } from "./prove.js";
import type { Proof } from "./schema.js";
import { describeProof, verifyProof } from "./verify-proof.js";

let dir: string;
const { privateKey, publicKey } = generateKeyPairSync("ed25519");
/** The session's event lines as stored (without their chain links), its heads, and the seqs of its two dispatches: the first never sent, the second sent. */
let lines: string[];
let heads: SignedHead[];
let unsent: number;
let sent: number;

const stored = () => readJsonlLines(join(dir, "session.jsonl"));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-proof-test-"));
  const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] } });
  const witness = new FileWitness(join(dir, "witness.jsonl"));
  try {
    const session = await openAgent({
      session: join(dir, "session.jsonl"),
      adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })],
      config: { provider: "deepseek", model: "deepseek-v4-flash" },
      signing: { key: privateKey, witness },
    });
    // Aborted after its dispatch is logged, before any byte left: its step ends unsent.
    const controller = new AbortController();
    const off = session.agent.on("agent/request", (seed) => {
      controller.abort();
      return seed;
    });
    await session.agent.run("never sent", { signal: controller.signal });
    off();
    await session.agent.run("sent");
    [unsent, sent] = (await reconstructRequests(session.log)).map((request) => request.dispatchSeq) as [number, number];
    await session.close();
  } finally {
    await witness.close();
    await sim.close();
  }
  lines = (await readFile(join(dir, "session.jsonl"), "utf8")).trimEnd().split("\n").slice(1).map((line) => `{${line.trimEnd().slice(`{"chain":"${"x".repeat(43)}",`.length)}`);
  heads = await readWitnessFile(join(dir, "witness.jsonl"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const digest = (line: string) => createHash("sha256").update(line).digest("hex");

describe("proveRequest and verifyProof", () => {
  it("prove a sent request with the lines through its step's end, which the proof checks to the hash and the signed head", async () => {
    const proof = await proveRequest(await stored(), sent, heads);
    const end = lines.findIndex((line, at) => at > sent && line.includes('"type":"step/end"'));
    expect(proof.lines).toEqual(lines.slice(0, end + 1));
    expect(proof.after).toEqual(lines.slice(end + 1, proof.head.events).map(digest));
    expect(proof.request).toMatchObject({ seq: sent, provider: "deepseek", model: "deepseek-v4-flash" });
    expect(await verifyProof(JSON.parse(JSON.stringify(proof)), publicKey)).toEqual({
      sessionId: proof.session.sessionId,
      seq: sent,
      provider: "deepseek",
      model: "deepseek-v4-flash",
      wireSha256: proof.request.wireSha256,
      fate: "sent",
      headEvents: proof.head.events,
      signedAt: proof.head.time,
      keyId: proof.head.keyId,
    });
  });

  it("say a request was in flight when the only head that covers it was signed before its step ended", async () => {
    const early = heads.filter((head) => head.events === sent + 1);
    expect(early).toHaveLength(1);
    const proof = await proveRequest(await stored(), sent, early);
    expect([proof.lines.length, proof.after]).toEqual([sent + 1, []]);
    expect(await verifyProof(proof, publicKey)).toMatchObject({ fate: "open", headEvents: sent + 1 });
  });

  it("refuse to prove what was never sent, what is no dispatch, and what no head backs", async () => {
    const refused = async (seq: number, from: readonly SignedHead[] = heads) => proveRequest(await stored(), seq, from);
    await expect(refused(unsent)).rejects.toMatchObject({ code: "PROOF_UNSENT", message: `the request dispatched at seq ${unsent} was never sent (its step ended before any byte left the process): there is nothing to prove` });
    await expect(refused(0)).rejects.toMatchObject({ code: "PROOF_NOT_A_DISPATCH", message: expect.stringMatching(/^seq 0 of session \S+ is not where a request was dispatched$/) });
    await expect(refused(lines.length)).rejects.toMatchObject({ code: "PROOF_NOT_A_DISPATCH", message: `session ${heads[0]!.sessionId} has ${lines.length} events: there is no seq ${lines.length}` });
    await expect(refused(sent, [])).rejects.toMatchObject({ code: "PROOF_UNBACKED", message: expect.stringMatching(/^no head in the witness covers seq \d+ of session \S+ and matches the log/) });
    await expect(refused(sent, heads.map((head) => ({ ...head, sessionId: "another" })))).rejects.toMatchObject({ code: "PROOF_UNBACKED" });
    const original = await readFile(join(dir, "session.jsonl"), "utf8");
    try {
      await writeFile(join(dir, "session.jsonl"), original.replace('"never sent"', '"never said"'));
      await expect(refused(sent)).rejects.toMatchObject({ code: "PROOF_UNBACKED", message: expect.stringMatching(/^seq \d+ breaks the chain/) });
    } finally {
      await writeFile(join(dir, "session.jsonl"), original);
    }
    await expect(proveRequest({ ...(await stored()), chained: false }, sent, heads)).rejects.toMatchObject({ code: "PROOF_UNBACKED", message: expect.stringMatching(/was written before hash chains$/) });
  });

  it("refuse a proof that does not hold, naming the check, whatever was changed", async () => {
    const proof = await proveRequest(await stored(), sent, heads);
    const refusedAs = async (change: (value: Proof) => unknown, message: string | RegExp) => {
      await expect(verifyProof(change(structuredClone(proof)), publicKey)).rejects.toMatchObject({ code: "PROOF_REFUSED", message: typeof message === "string" ? message : expect.stringMatching(message) });
    };
    await refusedAs(() => ({ hello: 1 }), "the file is not a dsh proof (format dsh-proof, version 2)");
    await refusedAs((value) => ({ ...value, version: 1 }), /^the proof is of format version 1, which does not carry what the log says of the request's fate/);
    await refusedAs((value) => ({ ...value, lines: value.lines.map((line) => line.replace('"sent"', '"SENT"')) }), "the lines and digests do not chain to the signed head: the proof was altered");
    // The last line given as a digest, a wrong one: the counts agree, the chain does not.
    await refusedAs((value) => ({ ...value, lines: value.lines.slice(0, -1), after: ["0".repeat(64), ...value.after] }), "the lines and digests do not chain to the signed head: the proof was altered");
    await refusedAs((value) => ({ ...value, after: [...value.after, "0".repeat(64)] }), /^the proof reaches \d+ events, but the head was signed at \d+$/);
    await refusedAs((value) => ({ ...value, head: { ...value.head, events: value.head.events + 1 } }), "the signed head its signature does not match its fields");
    await refusedAs((value) => ({ ...value, head: { ...value.head, sessionId: "another" } }), /^the signed head /);
    await refusedAs((value) => ({ ...value, request: { ...value.request, seq: value.lines.length } }), /^the request is at seq \d+, but the proof's lines end at seq \d+$/);
    await refusedAs((value) => ({ ...value, request: { ...value.request, wireSha256: "0".repeat(64) } }), /^the request rebuilt from the proof's lines has wire sha256 [0-9a-f]{64}, not the 0{64} it states$/);
    await refusedAs((value) => ({ ...value, request: { ...value.request, seq: 0 } }), /^the request cannot be rebuilt from the proof: seq 0 of session \S+ is not where a request was dispatched$/);
    await refusedAs((value) => ({ ...value, objects: { [digest("a")]: Buffer.from("b").toString("base64") } }), `the object named ${digest("a")} holds other bytes`);
    const other = generateKeyPairSync("ed25519").publicKey;
    await expect(verifyProof(proof, other)).rejects.toMatchObject({ code: "PROOF_REFUSED", message: expect.stringMatching(/^the signed head it is signed by key [0-9a-f]{16}, not by the given key/) });
    expect(await verifyProof(proof, [other, publicKey])).toMatchObject({ fate: "sent" });
  });

  it("refuse a proof made by hand that states the request's unsent fate, or hides it among the digests", async () => {
    const proof = await proveRequest(await stored(), sent, heads);
    const end = lines.findIndex((line, at) => at > unsent && line.includes('"type":"step/end"'));
    const crafted = (upTo: number): Proof => ({ ...proof, request: { ...proof.request, seq: unsent }, lines: lines.slice(0, upTo), after: lines.slice(upTo, proof.head.events).map(digest) });
    await expect(verifyProof(crafted(end + 1), publicKey)).rejects.toMatchObject({ code: "PROOF_REFUSED", message: `the log says the request at seq ${unsent} was never sent: its step ended before any byte left the process` });
    await expect(verifyProof(crafted(unsent + 1), publicKey)).rejects.toMatchObject({
      code: "PROOF_REFUSED",
      message: `the proof's lines stop before the step of the request at seq ${unsent} ended, though the head covers more: what the log says of its fate is left out`,
    });
  });
});

describe("describeProof", () => {
  it("says in one line which request the proof shows, its fate, its wire hash and the head that covers it", () => {
    const summary = { sessionId: "s", seq: 5, provider: "p", model: "m", wireSha256: "ab", fate: "sent", headEvents: 9, signedAt: Date.UTC(2026, 11, 7), keyId: "k" } as const;
    expect(describeProof(summary)).toBe("proof verified: session s, the request dispatched at seq 5 (p m) was sent with wire sha256 ab; covered by the head signed at 9 events by key k on 2026-12-07T00:00:00.000Z");
    expect(describeProof({ ...summary, fate: "open" })).toContain("(p m) was in flight where the head was signed (its step had not ended: it may not have left) with wire");
  });
});
