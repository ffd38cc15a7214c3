import { createAgentRegistry, sessionParentEvent } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { CacheSummary, cacheReport, describeVerdict, subagentCacheReads, type CacheFigures, type CacheRow } from "dsh-cache-report";
import { LogError, type EventLog } from "dsh-log";
import { EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { readLogWithObjects } from "../session.js";
import { followableStore, type SessionRef } from "../store.js";

export const CACHE_USAGE = "dsh cache LOG [--json] [--objects DIR] [--store URL]";

/** `dsh cache`: per-step prefix stability and cache reads, with every break attributed to a logged event. Rows are printed as they are measured. */
export async function cacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { log, attachments, flag: json, ref } = await readLogWithObjects(argv, io, "json", CACHE_USAGE);
  const summary = new CacheSummary();
  if (!json) io.stdout.write("turn.step  prompt  stable  cache-read  cache-write  note\n");
  let first = true;
  for await (const row of cacheReport(log, { attachments })) {
    io.stdout.write(json ? `${JSON.stringify(row)}\n` : `${formatRow(row, first)}\n`);
    summary.add(row);
    first = false;
  }
  const figures = summary.figures();
  if (!json) io.stdout.write(`${describeFigures(figures)}${await parentCacheLine(log, ref, attachments, io)}`);
  return figures.unexplained > 0 ? EXIT.failure : EXIT.ok;
}

/** For a subagent's session, what its first request could read of its parent's cache, in one line; nothing for another session. */
async function parentCacheLine(log: EventLog, ref: SessionRef, attachments: AttachmentStore, io: CliIo): Promise<string> {
  const first = log.get(0);
  if (first === undefined || !sessionParentEvent.is(first)) return "";
  const parentId = first.data.sessionId;
  const store = await followableStore(ref, io);
  try {
    const { log: parent } = await store.read(parentId, createAgentRegistry());
    const reads = await subagentCacheReads(parent, log, { attachments });
    if (reads === undefined) return `subagent of ${parentId}: it sent no request.\n`;
    const share = reads.readShare === 0 ? "reads nothing of its parent's cache (its prompt or tools differ from the parent's from the start)" : `can read ${percent(reads.readShare)} of its prompt from its parent's cache`;
    return `subagent of ${parentId}: its first request (seq ${reads.dispatchSeq}) ${share}, under the provider's cache rules.\n`;
  } catch (error) {
    if (error instanceof LogError && error.code === "LOG_NOT_FOUND") return `subagent of ${parentId}, which is not in the store.\n`;
    throw error;
  } finally {
    await store.close();
  }
}

function formatRow(row: CacheRow, first: boolean): string {
  const broke = row.isBreak ? [row.explanations.length > 0 ? `break: ${row.explanations.join("; ")}` : "break: UNEXPLAINED"] : [];
  const missed = row.misses.length > 0 ? [`miss: ${row.misses.join("; ")}`] : [];
  const provider = row.provider === undefined ? [] : [describeVerdict(row.provider)];
  const note = printable([...broke, ...missed, ...provider].join(" | "));
  return [
    `${row.turn}.${row.step}`.padEnd(9),
    String(row.promptTokens).padStart(8),
    (first ? "-" : String(row.stableTokens)).padStart(7),
    (row.cacheReadTokens === undefined ? "-" : String(row.cacheReadTokens)).padStart(11),
    (row.cacheWriteTokens === undefined ? "-" : String(row.cacheWriteTokens)).padStart(12),
    ` ${note}`,
  ]
    .join(" ")
    .trimEnd();
}

/** A share as a percentage with one decimal, or `n/a`. */
function percent(share: number | null): string {
  return share === null ? "n/a" : `${(100 * share).toFixed(1)}%`;
}

/** The report's closing lines, from the figures every surface shows. */
function describeFigures(figures: CacheFigures): string {
  const { verdicts } = figures;
  const lines = [
    "",
    `${figures.requests} request(s); after the first, ${percent(figures.repeatedShare)} of prompt tokens repeat the previous request; ` +
      `${figures.breaks} break(s), ${figures.unexplained} unexplained; ${figures.misses} cache miss(es) ` +
      "(requests whose repeated prefix the provider's rules would not read).",
    `cache-read share: ${percent(figures.cacheReadShare)} of the prompt tokens the provider reported, over all ${figures.reportedRequests} request(s) that reported usage.`,
  ];
  const diagnosed = verdicts.agree + verdicts.disagree + verdicts["provider-only"] + verdicts["no-verdict"];
  if (diagnosed > 0) {
    lines.push(
      `provider diagnoses: ${diagnosed}; ${verdicts.agree} agree with the log, ${verdicts.disagree} disagree, ${verdicts["provider-only"]} provider-only (no logged cause), ${verdicts["no-verdict"]} without a verdict.`,
    );
  }
  return `${lines.join("\n")}\n`;
}
