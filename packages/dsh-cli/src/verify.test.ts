import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeEach, describe, expect, it } from "vitest";
import { testPostgres } from "dsh-store-conformance/postgres-suite";
import pg from "pg";
import { openAgent } from "dsh-agent";
import { FileWitness, chainGenesis, lineDigest, nextLink, signingKeyFromPem } from "dsh-log";
import { ChatCompletionsAdapter, DEEPSEEK_MODELS } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { runCli } from "./test-support/run-cli.js";

/** How a JSONL line starts before its event's first key: `{"chain":"<43 characters of base64url>",`. */
const LINK_PREFIX = `{"chain":"${"x".repeat(43)}",`;

let dir: string;
const server = testPostgres();
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-verify-cli-"));
  await mkdir(join(dir, "project"));
  await writeFile(join(dir, "project", "README.md"), "# Sample\n");
  const other = generateKeyPairSync("ed25519");
  await writeFile(join(dir, "project", "other.pub.pem"), other.publicKey.export({ type: "spki", format: "pem" }));
  return () => rm(dir, { recursive: true, force: true });
});

const cwd = () => join(dir, "project");
const cli = (...argv: string[]) => runCli(argv, { cwd: cwd() });
const signed = ["--signing-key", "writer.pem", "--witness", "witness.jsonl"];
const checked = ["--public-key", "writer.pem.pub", "--witness", "witness.jsonl"];
const scenario = async () => {
  const path = join(dir, "steps.json");
  await writeFile(path, JSON.stringify({ responses: [{ text: "Looking.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "A readme." }] }));
  return path;
};
/** The seqs `dsh requests` says requests were dispatched at. */
const dispatchSeqs = async (log: string) => (await cli("requests", log)).stdout.trimEnd().split("\n").map((line) => (JSON.parse(line) as { seq: number }).seq);

beforeEach(async () => {
  const made = await cli("keygen", "writer.pem");
  expect(made).toMatchObject({ code: 0, stderr: expect.stringMatching(/^dsh: wrote the signing key .*writer\.pem \(keep it secret\) and its public key .*writer\.pem\.pub \(key id [0-9a-f]{16}\)\n$/) });
});

describe("dsh keygen", () => {
  it("writes a private key only its owner reads and never overwrites one", async () => {
    expect((await stat(join(cwd(), "writer.pem"))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(cwd(), "writer.pem.pub"), "utf8")).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    expect(await cli("keygen", "writer.pem")).toMatchObject({ code: 2, stderr: expect.stringMatching(/writer\.pem already exists: dsh keygen never writes over a file\n$/) });
  });
});

describe("dsh verify, prove and verify-proof on a JSONL log", () => {
  it("verifies a signed session, proves one request with the hash of the bytes really sent, and refuses an altered proof", async () => {
    const run = await cli("run", "--log", "s.jsonl", ...signed, "--scenario", await scenario(), "--record-wire", join(dir, "wire.jsonl"), "What is here?");
    expect(run.code).toBe(0);
    const plain = await cli("verify", "s.jsonl");
    expect(plain).toMatchObject({ code: 0, stdout: expect.stringMatching(/^intact: session [0-9a-f-]{36}, \d+ events, chain head [0-9a-f]{64}\n$/) });
    const witnessed = await cli("verify", "s.jsonl", ...checked);
    expect(witnessed).toMatchObject({ code: 0, stdout: expect.stringMatching(/; \d+ signed head\(s\) checked\n$/) });
    const report = JSON.parse((await cli("verify", "s.jsonl", ...checked, "--json")).stdout) as { status: string; unwitnessed: number; witnessed: number };
    expect(report).toMatchObject({ status: "intact", unwitnessed: 0 });

    const seqs = await dispatchSeqs("s.jsonl");
    expect(seqs).toHaveLength(2);
    const proved = await cli("prove", "s.jsonl", "--seq", String(seqs[1]), "--witness", "witness.jsonl", "-o", "proof.json");
    expect(proved.code).toBe(0);
    const proof = JSON.parse(await readFile(join(cwd(), "proof.json"), "utf8")) as { request: { wireSha256: string }; lines: string[]; after: string[]; head: { events: number } };
    // The proof's hash is that of the body the provider received, byte for byte.
    const sent = (await readFile(join(dir, "wire.jsonl"), "utf8")).trimEnd().split("\n").map((line) => JSON.parse(line) as string);
    expect(proof.request.wireSha256).toBe(createHash("sha256").update(sent[1]!).digest("hex"));
    // Its lines run through its step's end, the last of them: what the log says of the request's fate.
    const types = (await readFile(join(cwd(), "s.jsonl"), "utf8")).trimEnd().split("\n").slice(1).map((line) => (JSON.parse(`{${line.trimEnd().slice(LINK_PREFIX.length)}`) as { type: string }).type);
    const stepEnds = seqs.map((seq) => types.indexOf("step/end", seq));
    expect(proof.lines).toHaveLength(stepEnds[1]! + 1);
    const verified = await cli("verify-proof", "proof.json", "--public-key", "writer.pem.pub");
    expect(verified).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^proof verified: session \\S+, the request dispatched at seq ${seqs[1]} \\(sim \\S+\\) was sent with wire sha256 ${proof.request.wireSha256}; covered by the head signed at ${proof.head.events} events by key [0-9a-f]{16} on \\d{4}-`)) });

    const altered = async (change: (value: typeof proof) => unknown, message: string | RegExp) => {
      await writeFile(join(cwd(), "altered.json"), JSON.stringify(change(structuredClone(proof))));
      const result = await cli("verify-proof", "altered.json", "--public-key", "writer.pem.pub");
      expect([result.code, result.stdout]).toEqual([6, ""]);
      expect(result.stderr).toMatch(message);
    };
    expect(proof.lines.filter((line) => line.includes("What is here?"))).toHaveLength(1);
    await altered((value) => ({ ...value, lines: value.lines.map((line) => line.replace("What is here?", "What is there?")) }), /^dsh: proof refused: the lines and digests do not chain to the signed head: the proof was altered\n$/);
    await altered((value) => ({ ...value, request: { ...value.request, wireSha256: "0".repeat(64) } }), /proof refused: the request rebuilt from the proof's lines has wire sha256 [0-9a-f]{64}, not the 0{64} it states/);
    await altered((value) => ({ ...value, head: { ...value.head, events: value.head.events + 1 } }), /proof refused: the signed head its signature does not match its fields/);
    await altered((value) => ({ ...value, after: [...value.after, "0".repeat(64)] }), /proof refused: the proof reaches \d+ events, but the head was signed at \d+/);
    await altered(() => ({ hello: 1 }), /proof refused: the file is not a dsh proof/);
    // A proof of the first request through the last head only: the lines after it are there as digests.
    const heads = (await readFile(join(cwd(), "witness.jsonl"), "utf8")).trimEnd().split("\n");
    await writeFile(join(cwd(), "last-head.jsonl"), `${heads.at(-1)!}\n`);
    expect((await cli("prove", "s.jsonl", "--seq", String(seqs[0]), "--witness", "last-head.jsonl", "-o", "first.json")).code).toBe(0);
    const first = JSON.parse(await readFile(join(cwd(), "first.json"), "utf8")) as { lines: string[]; after: string[]; request: { wireSha256: string } };
    const lastEvents = (JSON.parse(heads.at(-1)!) as { events: number }).events;
    expect([first.lines.length, first.after.length]).toEqual([stepEnds[0]! + 1, lastEvents - stepEnds[0]! - 1]);
    expect(first.request.wireSha256).toBe(createHash("sha256").update(sent[0]!).digest("hex"));
    expect((await cli("verify-proof", "first.json", "--public-key", "writer.pem.pub")).code).toBe(0);
    expect(await cli("prove", "s.jsonl", "--seq", "1", "--witness", "witness.jsonl", "-o", "none.json")).toMatchObject({ code: 2, stderr: expect.stringMatching(/seq 1 of session \S+ is not where a request was dispatched/) });
    expect(await cli("prove", "s.jsonl", "--seq", String(seqs[1]), "--witness", "witness.jsonl", "-o", "proof.json")).toMatchObject({ code: 2, stderr: "dsh: proof.json already exists\n" });
    // A rotated key beside the writer's: the proof still holds, and so does the session.
    expect((await cli("verify-proof", "proof.json", "--public-key", "other.pub.pem", "--public-key", "writer.pem.pub")).code).toBe(0);
    expect((await cli("verify", "s.jsonl", "--public-key", "other.pub.pem", ...checked)).code).toBe(0);
    const foreign = await cli("verify-proof", "proof.json", "--public-key", "other.pub.pem");
    expect(foreign).toMatchObject({ code: 6, stderr: expect.stringMatching(/proof refused: the signed head it is signed by key [0-9a-f]{16}, not by the given key/) });
  });

  it("names the seq of an edited line and, against the witness, a dropped tail", async () => {
    expect((await cli("run", "--log", "s.jsonl", ...signed, "--scenario", await scenario(), "go")).code).toBe(0);
    const path = join(cwd(), "s.jsonl");
    const original = await readFile(path, "utf8");
    const lines = original.split("\n");
    const edited = lines.findIndex((line) => line.includes('"go"'));
    await writeFile(path, lines.map((line, i) => (i === edited ? line.replace('"go"', '"no"') : line)).join("\n"));
    expect(await cli("verify", "s.jsonl")).toMatchObject({ code: 6, stdout: `broken: session ${/"sessionId":"([^"]+)"/.exec(lines[0]!)![1]}: seq ${edited - 1} breaks the chain: its line or a line before it was changed, added or removed\n` });
    // The last commit gone: the chain that is left holds on its own, but not against the witness.
    await writeFile(path, original);
    await truncate(path, Buffer.byteLength(lines.slice(0, -2).join("\n")) + 1);
    expect((await cli("verify", "s.jsonl")).code).toBe(0);
    const dropped = await cli("verify", "s.jsonl", ...checked);
    expect(dropped).toMatchObject({ code: 6, stdout: expect.stringMatching(/^broken: session \S+: the log ends at \d+ events, but the witness holds a head signed at \d+: its tail was dropped\n$/) });
    expect(await cli("verify", "s.jsonl", "--witness", "witness.jsonl")).toMatchObject({ code: 2, stderr: "dsh: --public-key and --witness go together: the witness's heads are checked with the key\n" });
  });

  it("refuses to prove a request whose step ended unsent, and refuses a proof that hides or states that fate", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "ok" }] } });
    const witness = new FileWitness(join(cwd(), "witness.jsonl"));
    try {
      const adapter = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url, apiKey: "k", catalog: DEEPSEEK_MODELS });
      const key = signingKeyFromPem(await readFile(join(cwd(), "writer.pem")));
      const session = await openAgent({ session: join(cwd(), "u.jsonl"), adapters: [adapter], config: { provider: "deepseek", model: "deepseek-v4-flash" }, signing: { key, witness } });
      // Aborted after its dispatch is logged, before any byte left: its step ends unsent.
      const controller = new AbortController();
      const off = session.agent.on("agent/request", (seed) => {
        controller.abort();
        return seed;
      });
      expect(await session.agent.run("never sent", { signal: controller.signal })).toMatchObject({ reason: "aborted" });
      off();
      await session.agent.run("sent");
      await session.close();
    } finally {
      await witness.close();
      await sim.close();
    }
    expect(sim.exchanges).toHaveLength(1);
    const listed = (await cli("requests", "u.jsonl")).stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { seq: number; sent?: boolean });
    expect(listed.map((request) => request.sent)).toEqual([false, undefined]);
    const [unsent, sent] = listed.map((request) => request.seq) as [number, number];
    expect(await cli("prove", "u.jsonl", "--seq", String(unsent), "--witness", "witness.jsonl", "-o", "unsent.json")).toMatchObject({
      code: 2,
      stderr: `dsh: the request dispatched at seq ${unsent} was never sent (its step ended before any byte left the process): there is nothing to prove\n`,
    });
    expect((await cli("prove", "u.jsonl", "--seq", String(sent), "--witness", "witness.jsonl", "-o", "sent.json")).code).toBe(0);
    const proof = JSON.parse(await readFile(join(cwd(), "sent.json"), "utf8")) as { version: number; lines: string[]; after: string[]; request: { seq: number; wireSha256: string } };
    // The proof carries its request's step end, the last of its lines.
    expect(JSON.parse(proof.lines.at(-1)!)).toMatchObject({ type: "step/end", data: { turn: 1 } });
    expect(await cli("verify-proof", "sent.json", "--public-key", "writer.pem.pub")).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`the request dispatched at seq ${sent} \\(deepseek deepseek-v4-flash\\) was sent with wire sha256`)) });

    // Against a head signed right after the dispatch, before the step ended, the request was in flight.
    const atDispatch = (await readFile(join(cwd(), "witness.jsonl"), "utf8")).split("\n").find((line) => line.includes(`"events":${sent + 1},`));
    await writeFile(join(cwd(), "early.jsonl"), `${atDispatch!}\n`);
    expect((await cli("prove", "u.jsonl", "--seq", String(sent), "--witness", "early.jsonl", "-o", "early.json")).code).toBe(0);
    expect(JSON.parse(await readFile(join(cwd(), "early.json"), "utf8"))).toMatchObject({ lines: expect.objectContaining({ length: sent + 1 }), after: [] });
    expect((await cli("verify-proof", "early.json", "--public-key", "writer.pem.pub")).stdout).toMatch(
      new RegExp(`the request dispatched at seq ${sent} \\(deepseek deepseek-v4-flash\\) was in flight where the head was signed \\(its step had not ended: it may not have left\\) with wire sha256 ${proof.request.wireSha256}; covered by the head signed at ${sent + 1} events`),
    );

    // Proofs of the unsent request made by hand from the same lines and head: with its step end, and with it left out among the digests.
    const events = (await readFile(join(cwd(), "u.jsonl"), "utf8")).trimEnd().split("\n").slice(1).map((line) => `{${line.trimEnd().slice(LINK_PREFIX.length)}`);
    const end = events.findIndex((line, at) => at > unsent && line.includes('"type":"step/end"'));
    const digests = (from: number) => events.slice(from, proof.lines.length + proof.after.length).map((line) => createHash("sha256").update(line).digest("hex"));
    const crafted = async (upTo: number, extra: object = {}) => {
      await writeFile(join(cwd(), "crafted.json"), JSON.stringify({ ...proof, request: { ...proof.request, seq: unsent }, lines: events.slice(0, upTo), after: digests(upTo), ...extra }));
      return cli("verify-proof", "crafted.json", "--public-key", "writer.pem.pub");
    };
    expect(await crafted(end + 1)).toMatchObject({ code: 6, stderr: `dsh: proof refused: the log says the request at seq ${unsent} was never sent: its step ended before any byte left the process\n` });
    expect(await crafted(unsent + 1)).toMatchObject({ code: 6, stderr: `dsh: proof refused: the proof's lines stop before the step of the request at seq ${unsent} ended, though the head covers more: what the log says of its fate is left out\n` });
    expect(await crafted(unsent + 1, { version: 1 })).toMatchObject({ code: 6, stderr: expect.stringMatching(/proof refused: the proof is of format version 1, which does not carry what the log says of the request's fate/) });
  });

  it("calls a chain no signed head covers unwitnessed (exit 6): an empty witness, and a log forged under a new id with its chain recomputed", async () => {
    expect((await cli("run", "--log", "s.jsonl", ...signed, "--scenario", await scenario(), "go")).code).toBe(0);
    await writeFile(join(cwd(), "empty.jsonl"), "");
    const empty = await cli("verify", "s.jsonl", "--public-key", "writer.pem.pub", "--witness", "empty.jsonl");
    expect(empty).toMatchObject({ code: 6, stdout: expect.stringMatching(/^unwitnessed: session \S+: the chain holds, but no head in the witness is of session \S+: none of its \d+ events is witnessed/) });
    // Forged without the key: another text, a new session id, the chain recomputed with the public functions.
    const [header, ...events] = (await readFile(join(cwd(), "s.jsonl"), "utf8")).trimEnd().split("\n");
    const info = { ...(JSON.parse(header!) as { sessionId: string; createdAt: number }), sessionId: "forged" };
    let link = chainGenesis(info);
    const forged = events.map((stored) => {
      const line = `{${stored.trimEnd().slice(LINK_PREFIX.length)}`.replace('"go"', '"no"');
      link = nextLink(link, lineDigest(line));
      return `{"chain":"${link.toString("base64url")}",${line.slice(1)}`;
    });
    await writeFile(join(cwd(), "forged.jsonl"), `${JSON.stringify(info)}\n${forged.join("\n")}\n`);
    expect(await cli("verify", "forged.jsonl")).toMatchObject({ code: 0, stdout: expect.stringMatching(/^intact: session forged/) });
    const against = await cli("verify", "forged.jsonl", ...checked, "--json");
    expect(against.code).toBe(6);
    expect(JSON.parse(against.stdout)).toMatchObject({ sessionId: "forged", status: "unwitnessed", witnessed: 0, unwitnessed: events.length });
  });

  it("calls a log written before chains unchained, and refuses to sign appends to it", async () => {
    await writeFile(join(cwd(), "old.jsonl"), '{"format":"dsh-log","version":1,"sessionId":"old","createdAt":1}\n');
    expect(await cli("verify", "old.jsonl")).toMatchObject({ code: 6, stdout: "unchained: session old (0 events) was written before hash chains; nothing to check (dsh copy makes a chained copy)\n" });
    const resumed = await cli("resume", "old.jsonl", ...signed, "--scenario", await scenario(), "go");
    expect(resumed).toMatchObject({ code: 3, stderr: expect.stringMatching(/LOG_UNSUPPORTED_FORMAT/) });
    expect(await cli("run", "--log", "x.jsonl", "--signing-key", "writer.pem", "go")).toMatchObject({ code: 2, stderr: expect.stringMatching(/--signing-key and --witness go together/) });
  });
});

describe("dsh verify on SQLite and PostgreSQL", () => {
  it("verifies signed sessions in both stores through resume and copy, and names an edited row's seq", async () => {
    const sqlite = "sqlite:sessions.db";
    const run = await cli("run", "--store", sqlite, ...signed, "--scenario", await scenario(), "go");
    expect(run.code).toBe(0);
    const id = /dsh: log: .*#([^\s#]+)\n/.exec(run.stderr)![1]!;
    expect((await cli("resume", id, "--store", sqlite, ...signed, "--scenario", await scenario(), "again")).code).toBe(0);
    expect(await cli("verify", id, "--store", sqlite, ...checked)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^intact: /) });
    const postgres = await server.createDatabase();
    expect((await cli("copy", id, postgres, "--store", sqlite, ...signed)).code).toBe(0);
    const inSqlite = JSON.parse((await cli("verify", id, "--store", sqlite, "--json")).stdout) as { head: string };
    const inPostgres = JSON.parse((await cli("verify", `${postgres}#${id}`, ...checked, "--json")).stdout) as { status: string; head: string };
    // The same lines chain to the same head on every store.
    expect(inPostgres).toMatchObject({ status: "intact", head: inSqlite.head });

    const db = new Database(join(cwd(), "sessions.db"));
    db.prepare("UPDATE dsh_events SET line = replace(line, 'again', 'AGAIN') WHERE session_id = ? AND line LIKE '%again%'").run(id);
    const seq = (db.prepare("SELECT min(seq) AS seq FROM dsh_events WHERE session_id = ? AND line LIKE '%AGAIN%'").get(id) as { seq: number }).seq;
    db.close();
    expect(await cli("verify", id, "--store", sqlite)).toMatchObject({ code: 6, stdout: `broken: session ${id}: seq ${seq} breaks the chain: its line or a line before it was changed, added or removed\n` });
    const client = new pg.Client({ connectionString: postgres });
    await client.connect();
    await client.query("DELETE FROM dsh_events WHERE session_id = $1 AND seq = (SELECT max(seq) FROM dsh_events WHERE session_id = $1)", [id]);
    await client.query("UPDATE dsh_sessions SET head = head - 1 WHERE id = $1", [id]);
    await client.end();
    expect(await cli("verify", `${postgres}#${id}`, ...checked)).toMatchObject({ code: 6, stdout: expect.stringMatching(/its tail was dropped\n$/) });

    // Every session of a store at once: the edited one fails the whole run, the others are listed intact.
    expect((await cli("run", "--store", sqlite, ...signed, "--scenario", await scenario(), "more")).code).toBe(0);
    const everything = await cli("verify", "--all", "--store", sqlite);
    expect(everything.code).toBe(6);
    expect(everything.stdout.split("\n").filter(Boolean).map((line) => line.split(":")[0]).sort()).toEqual(["broken", "intact"]);
    const reports = (await cli("verify", "--all", "--store", postgres, ...checked, "--json")).stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { sessionId: string; status: string });
    expect(reports).toEqual([expect.objectContaining({ sessionId: id, status: "broken" })]);
    expect(await cli("verify", "--all", "s.jsonl")).toMatchObject({ code: 2 });
    expect(await cli("verify")).toMatchObject({ code: 2 });
  });
});
