import { clipText } from "dsh-base";
import { diffLines } from "diff";
import type { CacheDiagnosis, Message } from "dsh-llm";
import { surfaceNodeLabel } from "dsh-surface";
import type { CacheCheck } from "./cache-floor.js";
import type { NodeChange, RequestDifference } from "./diff.js";

/** What a check found: every way the replay differs from the fixture. `ok` when there is none. */
export interface FixtureReport {
  readonly name: string;
  readonly ok: boolean;
  readonly requests: { readonly recorded: number; readonly replayed: number; readonly differences: readonly RequestDifference[] };
  /** Prefix-cache breaks between consecutive requests the replay has and the fixture had not (`added`), or the other way round. */
  readonly breaks: { readonly added: readonly CacheBreak[]; readonly removed: readonly CacheBreak[] };
  /** Sidecar differences, one line or block each. */
  readonly sidecars: readonly string[];
  /** Log events that differ (requests aside, e.g. an added `series` snapshot): how many, and the first few. */
  readonly log: { readonly differing: number; readonly examples: readonly string[] };
  /** Calls the replay made without a recorded answer, and recorded answers it never asked for. */
  readonly replay: { readonly overruns: readonly string[]; readonly unusedAnswers: number; readonly unusedSummaries: number };
  /** With cache limits: the replay's cache under the provider's modelled rules, and whether it keeps them. */
  readonly cache?: CacheCheck;
}

/** A break in the prefix cache at request `number`, why, and the provider's diagnosis of the recorded request when it gave one. */
export interface CacheBreak {
  readonly number: number;
  readonly why: string;
  readonly provider?: CacheDiagnosis;
}

/** The provider's recorded verdict in words, for a report line. */
function recordedVerdict(provider: CacheDiagnosis | undefined): string {
  if (provider === undefined) return "";
  const said = provider.verdict === "miss" ? `miss (${provider.reason ?? "no reason"})` : provider.verdict;
  return `; the provider's recorded diagnosis: ${said}`;
}

const MAX_LINE = 160;
const MAX_DIFF_LINES = 12;

function clip(text: string): string {
  return clipText(text, MAX_LINE);
}

/** A message as a person reads it: its text, tool calls as `name(arguments)`, images by digest. */
function readable(message: Message | undefined): string {
  if (message === undefined) return "";
  if (message.role === "system") return message.content;
  const blocks = message.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
        return `[image ${block.image.digest.slice(0, 19)}…]`;
      case "tool-call":
        return `${block.name}(${block.arguments})`;
      case "reasoning":
        return `[reasoning] ${block.text}`;
      case "provider-item":
        return `[${String(block.item.type ?? "provider item")}]`;
      default:
        return "[redacted reasoning]";
    }
  });
  return blocks.join("\n");
}

/** A line diff of two texts, `-`/`+` prefixed, at most {@link MAX_DIFF_LINES} lines. */
export function textDiff(before: string, after: string, indent: string): string[] {
  const lines: string[] = [];
  for (const part of diffLines(before, after)) {
    if (!part.added && !part.removed) continue;
    for (const line of part.value.replace(/\n$/, "").split("\n")) lines.push(`${indent}${part.added ? "+" : "-"} ${clip(line)}`);
  }
  return lines.length > MAX_DIFF_LINES ? [...lines.slice(0, MAX_DIFF_LINES), `${indent}… ${lines.length - MAX_DIFF_LINES} more lines`] : lines;
}

function differenceBody(difference: RequestDifference): string[] {
  if (difference.missing === "recorded") return ["  the fixture has no request here: the replay sent one more", `  cache: ${difference.cache}`];
  if (difference.missing === "replayed") return ["  the replay never sent this request", `  cache: ${difference.cache}`];
  const lines = difference.header.map((line) => `  header: ${line}`);
  for (const change of difference.nodes) {
    lines.push(`  node ${change.node} (${surfaceNodeLabel((change.after ?? change.before)!)}) ${change.change}:`);
    lines.push(...textDiff(readable(change.before), readable(change.after), "    "));
  }
  lines.push(`  cache: ${difference.cache}`);
  return lines;
}

const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

/**
 * The report as text: one summary line, then each differing request (the request, its turn and step,
 * the header fields and surface nodes that changed with a line diff, and the cache consequence;
 * identical changes of consecutive requests folded into one line), new and vanished cache breaks,
 * sidecar and log differences.
 */
/** What a check compares: every way the replay can differ from the fixture, cache aside. */
export type ReplayDifferences = Pick<FixtureReport, "requests" | "breaks" | "sidecars" | "log" | "replay">;

/** Whether the replay differs from the fixture in any way a check reports (its cache aside). */
export function replayDiffers({ requests, breaks, sidecars, log, replay }: ReplayDifferences): boolean {
  return (
    requests.differences.length > 0 ||
    breaks.added.length + breaks.removed.length > 0 ||
    sidecars.length > 0 ||
    log.differing > 0 ||
    replay.overruns.length > 0 ||
    replay.unusedAnswers + replay.unusedSummaries > 0
  );
}

/** A share as a percentage with one decimal. */
const percent = (share: number | null) => (share === null ? "n/a" : `${(100 * share).toFixed(1)}%`);

/** The replay's cache against its limits, in one clause. */
function cacheSummary({ share, writeAmp, limits }: CacheCheck): string {
  const parts = [`cache-read share ${percent(share)}`];
  if (limits.cacheFloor !== undefined) parts[0] += ` (floor ${percent(limits.cacheFloor)}${(share ?? 0) < limits.cacheFloor ? ": missed" : ""})`;
  if (limits.maxWriteAmp !== undefined) {
    parts.push(writeAmp === null ? "no cache writes" : `write amplification ${writeAmp.toFixed(2)} (at most ${limits.maxWriteAmp.toFixed(2)}${writeAmp > limits.maxWriteAmp ? ": exceeded" : ""})`);
  }
  return parts.join(", ");
}

/** Each break of a replay that missed its cache limits: the logged events behind it and where its bytes start to differ. */
function cacheBreakLines(cache: CacheCheck): string[] {
  if (cache.ok) return [];
  if (cache.breaks.length === 0) return ["cache: no request breaks the prefix; the provider's rules read less (a prompt under the minimum, a pause past the cache's lifetime)"];
  return cache.breaks.map(({ number, turn, step, causes, divergence }) => {
    const where = divergence === undefined ? "" : `; its bytes differ from character ${divergence.offset}: ${JSON.stringify(divergence.now)} (was ${JSON.stringify(divergence.was)})`;
    return `cache break at request ${number} (turn ${turn} step ${step}): ${causes.join("; ") || "no logged event explains it"}${where}`;
  });
}

export function formatFixtureReport(report: FixtureReport): string {
  const { requests, cache } = report;
  const cacheClause = cache === undefined ? "" : `; ${cacheSummary(cache)}`;
  if (report.ok) return `fixture ${report.name}: unchanged (${plural(requests.recorded, "request")})${cacheClause}`;
  if (!replayDiffers(report)) return [`fixture ${report.name}: unchanged (${plural(requests.recorded, "request")}), but ${cacheSummary(cache!)}`, ...cacheBreakLines(cache!)].join("\n");
  const parts = [`${requests.differences.length} of ${Math.max(requests.recorded, requests.replayed)} requests differ`];
  if (report.breaks.added.length > 0) parts.push(plural(report.breaks.added.length, "new cache break"));
  if (report.breaks.removed.length > 0) parts.push(plural(report.breaks.removed.length, "cache break", "cache breaks") + " gone");
  if (report.sidecars.length > 0) parts.push(plural(report.sidecars.length, "sidecar difference"));
  if (report.log.differing > 0) parts.push(`${plural(report.log.differing, "log event")} ${report.log.differing === 1 ? "differs" : "differ"}`);
  const out = [`fixture ${report.name}: ${parts.join(", ")}`];
  let previous: { body: string; first: number; last: number } | undefined;
  const flush = () => {
    if (previous !== undefined && previous.last > previous.first) out.push(`requests ${previous.first + 1}-${previous.last}: the same change`);
  };
  for (const difference of requests.differences) {
    const body = differenceBody(difference).join("\n");
    if (previous !== undefined && previous.body === body && previous.last === difference.number - 1) {
      previous.last = difference.number;
      continue;
    }
    flush();
    out.push(`request ${difference.number} (turn ${difference.turn} step ${difference.step}, dispatched at seq ${difference.dispatchSeq}):`, body);
    previous = { body, first: difference.number, last: difference.number };
  }
  flush();
  for (const added of report.breaks.added) out.push(`new cache break at request ${added.number}: ${added.why}${recordedVerdict(added.provider)}`);
  for (const removed of report.breaks.removed) out.push(`cache break gone at request ${removed.number} (was: ${removed.why}${recordedVerdict(removed.provider)})`);
  out.push(...report.sidecars.map((line) => `sidecar: ${line}`));
  if (report.log.differing > 0) out.push(`log: ${report.log.examples.join("; ")}${report.log.differing > report.log.examples.length ? "; …" : ""}`);
  out.push(...report.replay.overruns.map((line) => `replay: ${line}`));
  if (report.replay.unusedAnswers > 0 || report.replay.unusedSummaries > 0) {
    out.push(`replay: ${plural(report.replay.unusedAnswers, "recorded answer")} and ${plural(report.replay.unusedSummaries, "recorded summary", "recorded summaries")} never asked for`);
  }
  if (cache !== undefined) out.push(`cache: ${cacheSummary(cache)}`, ...cacheBreakLines(cache));
  out.push("refresh the fixture (dsh fixture refresh DIR, or refreshFixture) to accept these changes");
  return out.join("\n");
}
