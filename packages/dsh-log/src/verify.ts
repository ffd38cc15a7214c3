import type { KeyObject } from "node:crypto";
import { chainGenesis, lineDigest, nextLink } from "./chain.js";
import { headSignatureProblem, type SignedHead } from "./signed-head.js";
import type { StoredLines } from "./store.js";

/** What {@link verifyLines} checks a session against beyond itself: the signed heads a witness holds, and the public key they must be signed with (or the keys, when keys were rotated). */
export interface WitnessCheck {
  readonly heads: readonly SignedHead[];
  readonly publicKey: KeyObject | readonly KeyObject[];
}

/**
 * The outcome of verifying a session: `intact`, `unchained` (written before hash chains: nothing to
 * check), `broken` with the first event (`seq`) or the witnessed head (`witnessedHead`) at fault, or,
 * checked against a witness, `unwitnessed`: the chain holds, but no signed head covers its last
 * `unwitnessed` events. With a witness, `intact` means a signed head covers the session to its end.
 */
export interface VerifyReport {
  readonly sessionId: string;
  readonly status: "intact" | "unchained" | "broken" | "unwitnessed";
  /** How many event lines the session holds. */
  readonly events: number;
  /** The chain's head over all of them (hex), when the chain holds. */
  readonly head?: string;
  /** The first event that breaks the chain. */
  readonly seq?: number;
  /** The witnessed head the log no longer matches or reaches. */
  readonly witnessedHead?: { readonly events: number; readonly head: string };
  /** One line saying what is wrong (for `unchained`, why nothing was checked; for `unwitnessed`, how much is). */
  readonly problem?: string;
  /** How many of the witness's heads for this session were checked. */
  readonly witnessed: number;
  /** Events after the last witnessed head, all of them when none is (a writer that crashed before its witness caught up, or appends made without the key). */
  readonly unwitnessed: number;
}

/** The problem line of a chain that holds but that the witness's heads do not cover to its end. */
function uncovered(sessionId: string, events: number, witnessedUpTo: number, heads: number): string {
  if (heads === 0) return `no head in the witness is of session ${sessionId}: none of its ${events} events is witnessed (a log signed with no key, or with another witness)`;
  const tail = events - witnessedUpTo;
  return `the last signed head covers ${witnessedUpTo} of ${events} events: the ${tail} after it ${tail === 1 ? "is" : "are"} not witnessed (a writer that stopped before its witness caught up, or appends made without the key)`;
}

type Broken = Pick<VerifyReport, "seq" | "witnessedHead" | "problem">;

/** The first of `heads` whose signature `publicKey` refuses, as a break. */
function badSignature(heads: readonly SignedHead[], publicKey: WitnessCheck["publicKey"]): Broken | undefined {
  for (const head of heads) {
    const problem = headSignatureProblem(head, publicKey);
    if (problem !== undefined) return { witnessedHead: head, problem: `the witness's head at ${head.events} events is not valid: ${problem}` };
  }
  return undefined;
}

/**
 * Verifies a session's stored lines: recomputes its chain from the session's identity, compares every
 * stored link (the first that differs names the event that breaks the chain: an edited, inserted or
 * removed line), and, with a witness, checks each signed head of this session against the key and
 * against the chain at its length: a head beyond the log's end is a dropped tail, a head that no
 * longer matches is a rewritten log, and a chain that holds but that no head covers to its end is
 * `unwitnessed` (a forged session signed by nobody, or a tail appended without the key).
 */
export async function verifyLines(stored: StoredLines, witness?: WitnessCheck): Promise<VerifyReport> {
  const { sessionId } = stored.info;
  const heads = (witness?.heads ?? []).filter((head) => head.sessionId === sessionId);
  const byLength = new Map<number, SignedHead[]>();
  for (const head of heads) {
    const same = byLength.get(head.events);
    if (same === undefined) byLength.set(head.events, [head]);
    else same.push(head);
  }
  const witnessedUpTo = (events: number): number => heads.reduce((most, head) => (head.events <= events && head.events > most ? head.events : most), 0);
  const report = (status: VerifyReport["status"], events: number, rest: Partial<VerifyReport> = {}): VerifyReport => {
    return { sessionId, status, events, witnessed: heads.length, unwitnessed: events - witnessedUpTo(events), ...rest };
  };
  if (!stored.chained) {
    let events = 0;
    for await (const _ of stored.lines) events++;
    return report("unchained", events, { problem: "the session was written before hash chains: there is nothing to check (copy it into a new session to chain it from now on)" });
  }
  const signature = witness === undefined ? undefined : badSignature(heads, witness.publicKey);
  if (signature !== undefined) return report("broken", 0, signature);
  let link = chainGenesis(stored.info);
  let events = 0;
  const mismatch = (at: number): Broken | undefined => {
    const head = byLength.get(at)?.find((candidate) => candidate.head !== link.toString("hex"));
    if (head === undefined) return undefined;
    const where = at === 0 ? "the session's identity (its id, creation time or parent) was changed" : `the log was rewritten at or before seq ${at - 1}`;
    return { witnessedHead: head, problem: `the head witnessed at ${at} events no longer matches: ${where}` };
  };
  let broken = mismatch(0);
  for await (const { line, link: kept } of stored.lines) {
    if (broken !== undefined) {
      events++;
      continue;
    }
    link = nextLink(link, lineDigest(line));
    if (kept === undefined) broken = { seq: events, problem: `seq ${events} carries no chain link` };
    else if (!kept.equals(link)) broken = { seq: events, problem: `seq ${events} breaks the chain: its line or a line before it was changed, added or removed` };
    events++;
    broken ??= mismatch(events);
  }
  if (broken !== undefined) return report("broken", events, broken);
  if (stored.recorded !== undefined && stored.recorded !== events) {
    return report("broken", events, { seq: Math.min(events, stored.recorded), problem: `the store records ${stored.recorded} events, but ${events} lines are stored` });
  }
  const beyond = heads.filter((head) => head.events > events).sort((a, b) => b.events - a.events)[0];
  if (beyond !== undefined) {
    return report("broken", events, { witnessedHead: beyond, problem: `the log ends at ${events} events, but the witness holds a head signed at ${beyond.events}: its tail was dropped` });
  }
  const head = link.toString("hex");
  if (witness !== undefined && !heads.some((signed) => signed.events === events)) {
    return report("unwitnessed", events, { head, problem: uncovered(sessionId, events, witnessedUpTo(events), heads.length) });
  }
  return report("intact", events, { head });
}

/** A report in one line, as `dsh verify` prints it: the status, the session, and what was checked or what broke. */
export function describeVerifyReport(report: VerifyReport): string {
  const { sessionId, status, events } = report;
  if (status === "unchained") return `unchained: session ${sessionId} (${events} events) was written before hash chains; nothing to check (dsh copy makes a chained copy)`;
  if (status === "broken") return `broken: session ${sessionId}: ${report.problem ?? "the chain does not hold"}`;
  if (status === "unwitnessed") return `unwitnessed: session ${sessionId}: the chain holds, but ${report.problem ?? "no signed head covers it"}`;
  const witnessed = report.witnessed === 0 ? "" : `; ${report.witnessed} signed head(s) checked${report.unwitnessed === 0 ? "" : `, ${report.unwitnessed} event(s) after the last one not witnessed`}`;
  return `intact: session ${sessionId}, ${events} events, chain head ${report.head ?? ""}${witnessed}`;
}
