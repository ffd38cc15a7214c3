import { reconstructRequestStream } from "dsh-agent";
import { serializeRequest } from "dsh-openai-compatible";
import { promptTokens } from "dsh-simulator";
import { cacheRows, type CacheRow, type TokenizedRequest } from "../cache-report.js";
import { EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { dialectOf } from "../providers.js";
import { printable } from "../printable.js";
import { readLogWithObjects } from "../session.js";

export const CACHE_USAGE = "dsh cache LOG [--json] [--objects DIR]";

/** `dsh cache`: per-step prefix stability and cache reads, with every break attributed to a logged event. */
export async function cacheCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { log, attachments, flag: json } = await readLogWithObjects(argv, io, "json", CACHE_USAGE);
  async function* tokenized(): AsyncGenerator<TokenizedRequest> {
    for await (const rebuilt of reconstructRequestStream(log)) {
      const wire = await serializeRequest(rebuilt.request, { dialect: dialectOf(rebuilt.request.config.provider), attachments });
      yield { request: rebuilt, tokens: promptTokens(JSON.parse(wire) as { tools?: unknown; messages?: unknown }) };
    }
  }
  const rows: CacheRow[] = [];
  for await (const row of cacheRows(log.slice(), tokenized())) rows.push(row);
  if (json) {
    for (const row of rows) io.stdout.write(`${JSON.stringify(row)}\n`);
  } else {
    io.stdout.write(formatReport(rows));
  }
  return rows.some((row) => row.isBreak && row.explanations.length === 0) ? EXIT.failure : EXIT.ok;
}

function formatReport(rows: readonly CacheRow[]): string {
  const lines = ["step    prompt  stable  cache-read  note"];
  for (const row of rows) {
    const note = printable(row.isBreak ? (row.explanations.length > 0 ? `break: ${row.explanations.join("; ")}` : "break: UNEXPLAINED") : "");
    lines.push(
      [
        `${row.turn}.${row.step}`.padEnd(6),
        String(row.promptTokens).padStart(8),
        (row === rows[0] ? "-" : String(row.stableTokens)).padStart(7),
        (row.cacheReadTokens === undefined ? "-" : String(row.cacheReadTokens)).padStart(11),
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
  lines.push(
    "",
    `${rows.length} request(s); after the first, ${percent(stable)} of prompt tokens repeat the previous request ` +
      `and ${percent(read)} were read from the provider's cache; ${breaks.length} break(s), ` +
      `${breaks.filter((row) => row.explanations.length === 0).length} unexplained.`,
  );
  return `${lines.join("\n")}\n`;
}
