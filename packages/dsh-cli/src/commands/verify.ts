import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { publicKeyFromPem, readJsonlLines, verifyLines, type StoredLines, type VerifyReport } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { checkProof } from "../proof.js";
import { witnessCheckOf } from "../signing.js";
import { openStore, sessionRef, type SessionRef } from "../store.js";

export const VERIFY_USAGE = "dsh verify LOG [--public-key FILE --witness FILE] [--json] [--store URL]";
export const VERIFY_PROOF_USAGE = "dsh verify-proof FILE --public-key FILE [--json]";

/** The stored lines a LOG argument points at, read as they are (no admission), and how to release their store. */
export async function storedLinesOf(ref: SessionRef, io: CliIo): Promise<{ readonly stored: StoredLines; close(): Promise<void> }> {
  if (ref.kind === "file") return { stored: await readJsonlLines(ref.path), close: async () => undefined };
  const store = await openStore(ref.url, io.cwd);
  try {
    return { stored: await store.readLines(ref.sessionId), close: () => store.close() };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The one line `dsh verify` prints for a report. */
export function describeReport(report: VerifyReport): string {
  const { sessionId, status, events } = report;
  if (status === "unchained") return `unchained: session ${sessionId} (${events} events) was written before hash chains; nothing to check (dsh copy makes a chained copy)`;
  if (status === "broken") return `broken: session ${sessionId}: ${report.problem ?? "the chain does not hold"}`;
  const witnessed = report.witnessed === 0 ? "" : `; ${report.witnessed} signed head(s) checked${report.unwitnessed === 0 ? "" : `, ${report.unwitnessed} event(s) after the last one not witnessed`}`;
  return `intact: session ${sessionId}, ${events} events, chain head ${report.head ?? ""}${witnessed}`;
}

/**
 * `dsh verify`: recomputes a session's hash chain from its stored lines and, with a witness and the
 * public key, checks its signed heads. Exit 0 when intact; 6 when broken (naming the seq, or the
 * witnessed head the log no longer matches or reaches) or unchained.
 */
export async function verifyCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { "public-key": { type: "string" }, witness: { type: "string" }, json: { type: "boolean", default: false }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${VERIFY_USAGE}`, EXIT.usage);
  const witness = await witnessCheckOf(values, io);
  const { stored, close } = await storedLinesOf(sessionRef(reference, values.store, io), io);
  let report: VerifyReport;
  try {
    report = await verifyLines(stored, witness);
  } finally {
    await close();
  }
  io.stdout.write(`${values.json === true ? JSON.stringify(report) : describeReport(report)}\n`);
  return report.status === "intact" ? EXIT.ok : EXIT.unverified;
}

/** `dsh verify-proof`: checks a proof `dsh prove` wrote, on its own, with the writer's public key; exit 0 when it holds, 6 when refused. */
export async function verifyProofCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { "public-key": { type: "string" }, json: { type: "boolean", default: false } } });
  const [file] = positionals;
  const keyPath = values["public-key"];
  if (file === undefined || positionals.length > 1 || keyPath === undefined) throw new CliError(`usage: ${VERIFY_PROOF_USAGE}`, EXIT.usage);
  const publicKey = publicKeyFromPem(await readFile(resolve(io.cwd, keyPath)).catch(() => {
    throw new CliError(`cannot read the public key ${keyPath}`, EXIT.usage);
  }));
  const text = await readFile(resolve(io.cwd, file), "utf8").catch(() => {
    throw new CliError(`cannot read the proof ${file}`, EXIT.usage);
  });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliError("proof refused: the file is not JSON", EXIT.unverified);
  }
  const summary = await checkProof(value, publicKey);
  io.stdout.write(
    values.json === true
      ? `${JSON.stringify({ verified: true, ...summary })}\n`
      : `proof verified: session ${summary.sessionId}, the request dispatched at seq ${summary.seq} (${summary.provider} ${summary.model}) had wire sha256 ${summary.wireSha256}; covered by the head signed at ${summary.headEvents} events by key ${summary.keyId} on ${new Date(summary.signedAt).toISOString()}\n`,
  );
  return EXIT.ok;
}
