import { stepEndEvent, type ReconstructedRequest } from "dsh-agent";
import { describeHeaderChanges, type EpochHeader } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { chatMisses } from "./chat-misses.js";
import { changesBetween } from "./logged-changes.js";
import { MessagesMissExplainer, type MessagesPrompt } from "./messages-misses.js";
import { causesBetween, providerVerdict, type ProviderVerdict } from "./provider-verdict.js";
import type { CacheDiagnosis } from "dsh-llm";

/** The cache picture of one dispatched request. */
export interface CacheRow {
  readonly turn: number;
  readonly step: number;
  /** Prompt tokens of this request. */
  readonly promptTokens: number;
  /** Leading tokens identical to the previous request's prompt (0 for the first). */
  readonly stableTokens: number;
  /** Cache-read tokens the provider reported for this step, if it reported usage. */
  readonly cacheReadTokens: number | undefined;
  /** Cache-write tokens the provider reported for this step, if it reported usage. */
  readonly cacheWriteTokens: number | undefined;
  /** The prompt tokens the provider counted for this step, if it reported usage (its tokenizer, not ours). */
  readonly reportedPromptTokens: number | undefined;
  /** Whether this request failed to extend the previous one. */
  readonly isBreak: boolean;
  /** For a break: the logged events that explain it (empty means unexplained). */
  readonly explanations: readonly string[];
  /** Why repeated prefix was not read: by the Messages API's rules (under the minimum, a TTL gap, the 20-block lookback), or a Chat Completions provider's cold or best-effort cache. */
  readonly misses: readonly string[];
  /** The provider's own diagnosis of this request's cache, when the session asked for one, and whether the log agrees. */
  readonly provider?: ProviderVerdict;
}

/** What a `step/end` reported of the cache: the usage, and the provider's diagnosis when it gave one. */
interface Reported {
  readonly read?: number;
  readonly write?: number;
  readonly prompt?: number;
  readonly diagnosis?: CacheDiagnosis;
}

/** Per-step cache usage and diagnosis reported in `step/end`, keyed by `turn.step`. */
function reportedUsage(events: readonly LogEvent[]): Map<string, Reported> {
  const usage = new Map<string, Reported>();
  for (const event of events) {
    if (!stepEndEvent.is(event)) continue;
    const { usage: used, cacheDiagnosis } = event.data;
    if (used === undefined && cacheDiagnosis === undefined) continue;
    usage.set(`${event.data.turn}.${event.data.step}`, {
      ...(used === undefined ? {} : { read: used.cacheReadTokens, write: used.cacheWriteTokens, prompt: used.inputTokens }),
      ...(cacheDiagnosis === undefined ? {} : { diagnosis: cacheDiagnosis }),
    });
  }
  return usage;
}

/** What a replace of earlier messages did, in a reader's words, by the replacing message's type and source. */
function replaceKind(type: string, source: string): string {
  if (type === "system/message") return "the system prompt changed";
  if (type === "tool/result" && source === "trim") return "old tool results were shortened";
  if (type === "user/message" && source === "compaction") return "older messages were replaced by a summary";
  return `a message was replaced (source ${source})`;
}

/**
 * The logged events between two dispatches that break a prefix, described for a person: settings
 * that changed (on a resume or mid-session) and messages replaced (a new system prompt, shortened
 * tool results, a compaction). A resume that changed nothing is no cause; a new request series is
 * named only when nothing else explains the break.
 */
export function explainBetween(events: readonly LogEvent[], fromSeq: number, toSeq: number, previous: EpochHeader | undefined): string[] {
  const out: string[] = [];
  const series: string[] = [];
  for (const change of changesBetween(events, fromSeq, toSeq, previous)) {
    if (change.kind === "replace") {
      const { start, end } = change.replaces;
      // A range runs in surface order: after a compaction it can start at a summary logged after its end.
      const what =
        start === end ? `the message logged at seq ${start}` : start < end ? `the messages logged at seqs ${start}..${end}` : `the messages from the one logged at seq ${start} to the one logged at seq ${end}`;
      out.push(`${replaceKind(change.type, change.source)}: ${what} (seq ${change.seq})`);
      continue;
    }
    const { reason, startsSeries, header } = change.data;
    const changes = change.before === undefined ? [] : describeHeaderChanges(change.before, header);
    if (changes.length > 0) out.push(`${reason === "resume" ? "resumed with other settings" : "settings changed"}: ${changes.join("; ")} (seq ${change.seq})`);
    if (reason === "series" || startsSeries === true) series.push(`a new request series was started (seq ${change.seq})`);
  }
  return out.length > 0 ? out : series;
}

/** One request's prompt as the cache report reads it: its step, its size, and what it shares with the request before. */
export interface MeasuredPrompt {
  readonly request: Pick<ReconstructedRequest, "turn" | "step" | "dispatchSeq" | "snapshot">;
  /** Prompt tokens of this request. */
  readonly promptTokens: number;
  /** Leading prompt tokens identical to the previous request's, whatever its model (0 for the first). */
  readonly sharedTokens: number;
  /** For the Messages API, its cache blocks. */
  readonly messages?: MessagesPrompt | undefined;
}

/**
 * The per-step prefix-cache report, one row per request as the requests stream in: how many leading
 * prompt tokens repeat the previous request (none after a model switch), what the provider reported
 * as cache reads, and for every break the logged events that explain it. Each request comes
 * measured, so no prompt's tokens are held here.
 */
export async function* cacheRows(events: readonly LogEvent[], requests: AsyncIterable<MeasuredPrompt>): AsyncGenerator<CacheRow> {
  const usage = reportedUsage(events);
  const misses = new MessagesMissExplainer();
  let previous: MeasuredPrompt | undefined;
  for await (const current of requests) {
    const { turn, step, dispatchSeq, snapshot } = current.request;
    const { promptTokens } = current;
    const reported = usage.get(`${turn}.${step}`);
    const cacheReadTokens = reported?.read;
    const cacheWriteTokens = reported?.write;
    const reportedPromptTokens = reported?.prompt;
    const missed = (stable: number) => {
      if (current.messages !== undefined) return misses.next(current.messages, stable);
      if (previous === undefined || stable === 0) return [];
      const prompt = (at: MeasuredPrompt) => ({ header: at.request.snapshot.header, time: events[at.request.dispatchSeq]?.time ?? 0 });
      return chatMisses(prompt(previous), prompt(current), stable, cacheReadTokens);
    };
    const diagnosis = reported?.diagnosis;
    const verdict = (): { provider?: ProviderVerdict } => {
      if (diagnosis === undefined) return {};
      const causes = previous === undefined ? new Set<never>() : causesBetween(events, previous.request.dispatchSeq, dispatchSeq, previous.request.snapshot.header);
      return { provider: providerVerdict(diagnosis, causes, snapshot.header.wire?.api === "responses" ? "responses" : "messages") };
    };
    if (previous === undefined) {
      yield { turn, step, promptTokens, stableTokens: 0, cacheReadTokens, cacheWriteTokens, reportedPromptTokens, isBreak: false, explanations: [], misses: missed(0), ...verdict() };
    } else {
      const before = previous.request;
      // A provider's prefix cache is per model: another model shares no prefix at all.
      const [was, now] = [before.snapshot.header.config, snapshot.header.config];
      const stableTokens = was.provider === now.provider && was.model === now.model ? current.sharedTokens : 0;
      const isBreak = stableTokens < previous.promptTokens;
      const explanations = isBreak ? explainBetween(events, before.dispatchSeq, dispatchSeq, before.snapshot.header) : [];
      yield { turn, step, promptTokens, stableTokens, cacheReadTokens, cacheWriteTokens, reportedPromptTokens, isBreak, explanations, misses: missed(stableTokens), ...verdict() };
    }
    previous = current;
  }
}
