import { cacheRows, type CacheRow } from "../cache-report.js";
import { EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { describeVerdict } from "../provider-verdict.js";
import { readLogWithObjects } from "../session.js";
import { tokenizedRequests } from "../tokenized.js";

export const CACHE_USAGE = "dsh cache LOG [--json] [--objects DIR] [--store URL]";

/** `dsh cache`: per-step prefix stability and cache reads, with every break attributed to a logged event. */
export async function cacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { log, attachments, flag: json } = await readLogWithObjects(argv, io, "json", CACHE_USAGE);
  const events = log.slice();
  const rows: CacheRow[] = [];
  for await (const row of cacheRows(events, tokenizedRequests(log, attachments))) rows.push(row);
  if (json) {
    for (const row of rows) io.stdout.write(`${JSON.stringify(row)}\n`);
  } else {
    io.stdout.write(formatReport(rows));
  }
  return rows.some((row) => row.isBreak && row.explanations.length === 0) ? EXIT.failure : EXIT.ok;
}

function formatReport(rows: readonly CacheRow[]): string {
  const lines = ["turn.step  prompt  stable  cache-read  cache-write  note"];
  for (const row of rows) {
    const broke = row.isBreak ? [row.explanations.length > 0 ? `break: ${row.explanations.join("; ")}` : "break: UNEXPLAINED"] : [];
    const missed = row.misses.length > 0 ? [`miss: ${row.misses.join("; ")}`] : [];
    const provider = row.provider === undefined ? [] : [describeVerdict(row.provider)];
    const note = printable([...broke, ...missed, ...provider].join(" | "));
    lines.push(
      [
        `${row.turn}.${row.step}`.padEnd(9),
        String(row.promptTokens).padStart(8),
        (row === rows[0] ? "-" : String(row.stableTokens)).padStart(7),
        (row.cacheReadTokens === undefined ? "-" : String(row.cacheReadTokens)).padStart(11),
        (row.cacheWriteTokens === undefined ? "-" : String(row.cacheWriteTokens)).padStart(12),
        ` ${note}`,
      ].join(" ").trimEnd(),
    );
  }
  const later = rows.slice(1);
  const prompt = later.reduce((sum, row) => sum + row.promptTokens, 0);
  const stable = later.reduce((sum, row) => sum + row.stableTokens, 0);
  const read = later.reduce((sum, row) => sum + (row.cacheReadTokens ?? 0), 0);
  const breaks = rows.filter((row) => row.isBreak);
  const percent = (part: number) => (prompt === 0 ? "n/a" : `${((100 * part) / prompt).toFixed(1)}%`);
  // The web app's share: cache reads over the prompt tokens the provider reported, every request that reported usage included.
  const reported = rows.filter((row) => row.reportedPromptTokens !== undefined);
  const reportedPrompt = reported.reduce((sum, row) => sum + row.reportedPromptTokens!, 0);
  const reportedRead = reported.reduce((sum, row) => sum + (row.cacheReadTokens ?? 0), 0);
  lines.push(
    "",
    `${rows.length} request(s); after the first, ${percent(stable)} of prompt tokens repeat the previous request ` +
      `and ${percent(read)} were read from the provider's cache; ${breaks.length} break(s), ` +
      `${breaks.filter((row) => row.explanations.length === 0).length} unexplained; ${rows.filter((row) => row.misses.length > 0).length} cache miss(es) ` +
      "(requests whose repeated prefix the provider's rules would not read).",
    `cache-read share: ${reportedPrompt === 0 ? "n/a" : `${((100 * reportedRead) / reportedPrompt).toFixed(1)}%`} of the prompt tokens the provider reported, ` +
      `over all ${reported.length} request(s) that reported usage (the web app's figure).`,
  );
  const verdicts = rows.flatMap((row) => (row.provider === undefined ? [] : [row.provider.agreement]));
  if (verdicts.length > 0) {
    const count = (agreement: string) => verdicts.filter((verdict) => verdict === agreement).length;
    lines.push(`provider diagnoses: ${verdicts.length}; ${count("agree")} agree with the log, ${count("disagree")} disagree, ${count("provider-only")} provider-only (no logged cause), ${count("no-verdict")} without a verdict.`);
  }
  return `${lines.join("\n")}\n`;
}
