import { readFile } from "node:fs/promises";
import { describeTreeSession, verifyChildren, verifyStoreSessions } from "dsh-agent";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { describeVerifyReport, verifyLines, type VerifyReport, type WitnessCheck } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { describeProof, verifyProof } from "dsh-proof";
import { publicKeysOf, witnessCheckOf } from "../signing.js";
import { followableStore, openStore, sessionRef, storedLinesOf, storeUrl, type SessionRef } from "../store.js";

export const VERIFY_USAGE = "dsh verify LOG|--all [--public-key FILE... --witness FILE] [--json] [--store URL]";
export const VERIFY_PROOF_USAGE = "dsh verify-proof FILE --public-key FILE... [--json]";

/** Prints a report as `dsh verify` does (one line, or JSON) and says whether it is intact. */
function printReport(report: VerifyReport, json: boolean, io: CliIo): boolean {
  io.stdout.write(`${json ? JSON.stringify(report) : describeVerifyReport(report)}\n`);
  return report.status === "intact";
}

/** Verifies every session of the store at `url`, one line each (and one for each subagent link that does not hold); true when all are intact. */
async function verifyStore(url: string, witness: WitnessCheck | undefined, json: boolean, io: CliIo): Promise<boolean> {
  const store = await openStore(url, io.cwd);
  try {
    let intact = true;
    for await (const { report, linkProblems } of verifyStoreSessions(store, witness)) {
      intact = printReport(report, json, io) && linkProblems.length === 0 && intact;
      for (const problem of linkProblems) io.stdout.write(`${json ? JSON.stringify(problem) : problem.problem}\n`);
    }
    return intact;
  } finally {
    await store.close();
  }
}

/**
 * `dsh verify`: recomputes a session's hash chain from its stored lines (or, with `--all`, every
 * session's in the store in effect) and, with a witness and the public key, checks the signed heads;
 * then the subagent sessions it links, a line each (each as its parent recorded it). Exit 0 when intact (with a witness: a signed head covers the session to its end); 6 when broken
 * (naming the seq, or the witnessed head the log no longer matches or reaches), unwitnessed or unchained.
 */
export async function verifyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { "public-key": { type: "string", multiple: true }, witness: { type: "string" }, json: { type: "boolean", default: false }, store: { type: "string" }, all: { type: "boolean", default: false } },
  });
  const [reference] = positionals;
  const all = values.all === true;
  if (positionals.length > 1 || (reference === undefined) === !all) throw new CliError(`usage: ${VERIFY_USAGE}`, EXIT.usage);
  const witness = await witnessCheckOf(values, io);
  const json = values.json === true;
  if (all) return (await verifyStore(storeUrl(values.store, io), witness, json, io)) ? EXIT.ok : EXIT.unverified;
  const ref = sessionRef(reference!, values.store, io);
  const { stored, close } = await storedLinesOf(ref, io);
  let report: VerifyReport;
  try {
    report = await verifyLines(stored, witness);
  } finally {
    await close();
  }
  const intact = printReport(report, json, io);
  return intact && (await childrenHold(ref, report.sessionId, witness, json, io)) ? EXIT.ok : EXIT.unverified;
}

/** Checks the subagent sessions an intact session links (in its store, or a JSONL file's directory), a line each; true when all hold. */
async function childrenHold(ref: SessionRef, sessionId: string, witness: WitnessCheck | undefined, json: boolean, io: CliIo): Promise<boolean> {
  const store = await followableStore(ref, io);
  try {
    let hold = true;
    for (const child of await verifyChildren(store, sessionId, witness)) {
      hold &&= child.problem === undefined;
      io.stdout.write(`${json ? JSON.stringify(child) : describeTreeSession(child)}\n`);
    }
    return hold;
  } finally {
    await store.close();
  }
}

/** `dsh verify-proof`: checks a proof `dsh prove` wrote, on its own, with the writer's public key; exit 0 when it holds, 6 when refused. */
export async function verifyProofCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { "public-key": { type: "string", multiple: true }, json: { type: "boolean", default: false } } });
  const [file] = positionals;
  const keyPaths = values["public-key"] ?? [];
  if (file === undefined || positionals.length > 1 || keyPaths.length === 0) throw new CliError(`usage: ${VERIFY_PROOF_USAGE}`, EXIT.usage);
  const publicKey = await publicKeysOf(keyPaths, io);
  const text = await readFile(resolve(io.cwd, file), "utf8").catch(() => {
    throw new CliError(`cannot read the proof ${file}`, EXIT.usage);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError("proof refused: the file is not JSON", EXIT.unverified);
  }
  const summary = await verifyProof(value, publicKey);
  io.stdout.write(
    values.json === true
      ? `${JSON.stringify({ verified: true, ...summary })}\n`
      : `${describeProof(summary)}\n`,
  );
  return EXIT.ok;
}
