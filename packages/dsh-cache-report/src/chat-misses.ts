import type { EpochHeader } from "dsh-header";
import { geminiCacheMinimum } from "dsh-simulator";

/** How a Chat Completions provider's automatic prefix cache reads and keeps prefixes. */
interface ChatCacheRules {
  readonly name: string;
  /** Reads come in whole units of this many tokens. */
  readonly unit: number;
  /** Prompts shorter than this are never cached. */
  readonly minimum: number;
  /** How long an unused prefix is kept, at least, and in words. */
  readonly keptMs: number;
  readonly kept: string;
}

const HOUR = 60 * 60_000;

/** The rules of the provider a request went to, from its logged header (the wire dialect and OpenAI's retention choice). */
function rulesOf(header: EpochHeader): ChatCacheRules {
  const provider = header.config.provider;
  if (provider === "sim-gemini") return { name: "the simulator", unit: 128, minimum: geminiCacheMinimum(header.config.model), keptMs: Number.POSITIVE_INFINITY, kept: "in .dsh/simulator-cache.json of the directory it ran in" };
  if (header.wire?.api === "gemini") return { name: "Gemini's implicit cache", unit: 1, minimum: geminiCacheMinimum(header.config.model), keptMs: 3 * 60_000, kept: "best effort, for a few minutes" };
  if (provider === "sim-openai-responses") return { name: "the simulator", unit: 128, minimum: 1024, keptMs: Number.POSITIVE_INFINITY, kept: "in .dsh/simulator-cache.json of the directory it ran in" };
  if (header.wire?.dialect === "openai" || header.wire?.api === "responses") {
    return header.config.extensions?.prompt_cache_retention === "24h"
      ? { name: "OpenAI", unit: 128, minimum: 1024, keptMs: 24 * HOUR, kept: "up to 24 hours (extended retention)" }
      : { name: "OpenAI", unit: 128, minimum: 1024, keptMs: 5 * 60_000, kept: "5 to 10 minutes, at most an hour" };
  }
  if (header.wire?.api === "messages") {
    return { name: "DeepSeek's Anthropic-format API (it ignores cache_control and caches prefixes on its own)", unit: 64, minimum: 64, keptMs: HOUR, kept: "best effort, usually for hours" };
  }
  if (provider === "sim") return { name: "the simulator", unit: 64, minimum: 64, keptMs: Number.POSITIVE_INFINITY, kept: "in .dsh/simulator-cache.json of the directory it ran in" };
  return { name: "DeepSeek", unit: 64, minimum: 64, keptMs: HOUR, kept: "best effort, usually for hours" };
}

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes < 60 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** One Chat Completions request as the miss explainer sees it. */
export interface ChatPrompt {
  readonly header: EpochHeader;
  /** When it was dispatched (the log's `request/dispatch` time), in epoch ms. */
  readonly time: number;
}

/**
 * Why a Chat Completions request read less of its repeated prefix than the provider's rules allow
 * (whole units, above the minimum): the provider's cache was cold after a long pause, or it did not
 * keep the prefix (best effort: evicted, or served by another machine). Empty when all of it that
 * could be read was read, or when the provider reported no usage.
 */
export function chatMisses(previous: ChatPrompt, current: ChatPrompt, stableTokens: number, cacheReadTokens: number | undefined): string[] {
  if (cacheReadTokens === undefined) return [];
  const rules = rulesOf(current.header);
  const readable = stableTokens < rules.minimum ? 0 : stableTokens - (stableTokens % rules.unit);
  if (cacheReadTokens >= readable) return [];
  const gap = current.time - previous.time;
  if (gap >= rules.keptMs) {
    return [`cold cache: ${duration(gap)} since the previous request, and ${rules.name} keeps an unused prefix ${rules.kept}`];
  }
  return [`${rules.name} read ${cacheReadTokens} of the ${readable} repeated tokens it could have: its cache is best effort (an evicted prefix, another machine), kept ${rules.kept}`];
}
