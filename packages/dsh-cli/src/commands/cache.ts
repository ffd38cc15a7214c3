import { cacheRows, type CacheRow } from "../cache-report.js";
import { EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { measuredPrompts } from "../measured-prompts.js";
import { printable } from "../printable.js";
import { describeVerdict, type ProviderVerdict } from "../provider-verdict.js";
import { readLogWithObjects } from "../session.js";

export const CACHE_USAGE = "dsh cache LOG [--json] [--objects DIR] [--store URL]";

/** `dsh cache`: per-step prefix stability and cache reads, with every break attributed to a logged event. Rows are printed as they are measured. */
export async function cacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { log, attachments, flag: json } = await readLogWithObjects(argv, io, "json", CACHE_USAGE);
  const totals = new CacheTotals();
  if (!json) io.stdout.write("turn.step  prompt  stable  cache-read  cache-write  note\n");
  for await (const row of cacheRows(log.slice(), measuredPrompts(log, attachments))) {
    io.stdout.write(json ? `${JSON.stringify(row)}\n` : `${formatRow(row, totals.rows === 0)}\n`);
    totals.add(row);
  }
  if (!json) io.stdout.write(totals.summary());
  return totals.unexplained > 0 ? EXIT.failure : EXIT.ok;
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

/** The report's closing figures, summed row by row so no row is held. */
class CacheTotals {
  rows = 0;
  unexplained = 0;
  #breaks = 0;
  #misses = 0;
  /** Prompt, stable and cache-read tokens of every request after the first. */
  #later = { prompt: 0, stable: 0, read: 0 };
  /** Prompt and cache-read tokens over the requests whose provider reported usage. */
  #reported = { requests: 0, prompt: 0, read: 0 };
  readonly #verdicts = new Map<ProviderVerdict["agreement"], number>();

  add(row: CacheRow): void {
    if (this.rows++ > 0) {
      this.#later.prompt += row.promptTokens;
      this.#later.stable += row.stableTokens;
      this.#later.read += row.cacheReadTokens ?? 0;
    }
    if (row.isBreak) this.#breaks++;
    if (row.isBreak && row.explanations.length === 0) this.unexplained++;
    if (row.misses.length > 0) this.#misses++;
    if (row.reportedPromptTokens !== undefined) {
      this.#reported.requests++;
      this.#reported.prompt += row.reportedPromptTokens;
      this.#reported.read += row.cacheReadTokens ?? 0;
    }
    if (row.provider !== undefined) this.#verdicts.set(row.provider.agreement, (this.#verdicts.get(row.provider.agreement) ?? 0) + 1);
  }

  summary(): string {
    const { prompt, stable, read } = this.#later;
    const percent = (part: number) => (prompt === 0 ? "n/a" : `${((100 * part) / prompt).toFixed(1)}%`);
    const reported = this.#reported;
    const lines = [
      "",
      `${this.rows} request(s); after the first, ${percent(stable)} of prompt tokens repeat the previous request ` +
        `and ${percent(read)} were read from the provider's cache; ${this.#breaks} break(s), ` +
        `${this.unexplained} unexplained; ${this.#misses} cache miss(es) ` +
        "(requests whose repeated prefix the provider's rules would not read).",
      // The web app's share: cache reads over the prompt tokens the provider reported, every request that reported usage included.
      `cache-read share: ${reported.prompt === 0 ? "n/a" : `${((100 * reported.read) / reported.prompt).toFixed(1)}%`} of the prompt tokens the provider reported, ` +
        `over all ${reported.requests} request(s) that reported usage (the web app's figure).`,
    ];
    const verdicts = [...this.#verdicts.values()].reduce((sum, count) => sum + count, 0);
    if (verdicts > 0) {
      const count = (agreement: ProviderVerdict["agreement"]) => this.#verdicts.get(agreement) ?? 0;
      lines.push(`provider diagnoses: ${verdicts}; ${count("agree")} agree with the log, ${count("disagree")} disagree, ${count("provider-only")} provider-only (no logged cause), ${count("no-verdict")} without a verdict.`);
    }
    return `${lines.join("\n")}\n`;
  }
}
