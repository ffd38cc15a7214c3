import { headerCauses, type EpochHeader, type HeaderCause } from "dsh-header";
import type { CacheDiagnosis } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { changesBetween } from "./logged-changes.js";

/** A logged cause of a cache miss, in the provider-neutral words dsh attributes breaks with. */
export type LoggedCause = HeaderCause | "system-prompt" | "messages";

/** How the provider's own verdict on a request's cache compares with what the log says happened. */
export type Agreement =
  /** Both say the same: no cause and a hit, or a miss for a reason one of the logged causes explains. */
  | "agree"
  /** The provider names a reason no logged cause explains, or says hit over a logged cause. */
  | "disagree"
  /** The provider reports a miss the log has no cause for: an eviction on its side, or a bug in one of the two. */
  | "provider-only"
  /** The provider gave no verdict (it no longer knew the previous answer, or had none yet). */
  | "no-verdict";

/** The provider's verdict on one request, and whether dsh's attribution agrees with it. */
export interface ProviderVerdict extends CacheDiagnosis {
  readonly agreement: Agreement;
}

/**
 * The causes logged between two dispatches: settings that changed in a header snapshot, and
 * replaced messages (a new system prompt, a compaction, shortened tool results).
 */
export function causesBetween(events: readonly LogEvent[], fromSeq: number, toSeq: number, previous: EpochHeader | undefined): ReadonlySet<LoggedCause> {
  const causes = new Set<LoggedCause>();
  for (const change of changesBetween(events, fromSeq, toSeq, previous)) {
    if (change.kind === "replace") {
      causes.add(change.type === "system/message" ? "system-prompt" : "messages");
      continue;
    }
    if (change.before !== undefined) for (const cause of headerCauses(change.before, change.data.header)) causes.add(cause);
  }
  return causes;
}

/** The reasons each API's diagnosis may give for a logged cause (it reports the first divergence it finds). */
const REASONS: Readonly<Record<"messages" | "responses", Readonly<Record<LoggedCause, readonly string[]>>>> = {
  messages: {
    provider: ["model_changed"],
    model: ["model_changed"],
    tools: ["tools_changed"],
    effort: ["messages_changed", "system_changed"],
    "cache-key": [],
    "system-prompt": ["system_changed"],
    messages: ["messages_changed"],
  },
  responses: {
    provider: ["model_changed"],
    model: ["model_changed"],
    tools: ["tools_changed"],
    effort: ["reasoning_effort_changed"],
    "cache-key": ["prompt_cache_key_changed"],
    "system-prompt": ["input_changed"],
    messages: ["input_changed", "context_compacted"],
  },
};

/** Compares the provider's diagnosis of a request with the causes the log records before it. */
export function providerVerdict(diagnosis: CacheDiagnosis, causes: ReadonlySet<LoggedCause>, api: "messages" | "responses"): ProviderVerdict {
  const expected = new Set([...causes].flatMap((cause) => REASONS[api][cause]));
  const agreement: Agreement =
    diagnosis.verdict === "hit"
      ? expected.size === 0
        ? "agree"
        : "disagree"
      : diagnosis.verdict !== "miss"
        ? "no-verdict"
        : causes.size === 0
          ? "provider-only"
          : expected.has(diagnosis.reason ?? "")
            ? "agree"
            : "disagree";
  return { ...diagnosis, agreement };
}

/** A verdict in a reader's words, for `dsh cache` and the web app. */
export function describeVerdict(verdict: ProviderVerdict): string {
  const said = verdict.verdict === "miss" ? `miss (${verdict.reason ?? "no reason"}${verdict.missedTokens === undefined ? "" : `, ${verdict.missedTokens} tokens`})` : verdict.verdict;
  const words: Readonly<Record<Agreement, string>> = {
    agree: "agrees with the log",
    disagree: "DISAGREES with the log",
    "provider-only": "no logged cause: a provider-side eviction, or a bug in one of the two",
    "no-verdict": "no verdict to compare",
  };
  return `provider: ${said}, ${words[verdict.agreement]}`;
}
