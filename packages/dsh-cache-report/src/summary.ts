import { cacheReadShare } from "dsh-llm";
import type { CacheRow } from "./cache-report.js";
import type { ProviderVerdict } from "./provider-verdict.js";

/** The closing figures of a cache report; each is defined once, here, and every surface shows this one. */
export interface CacheFigures {
  /** Requests reported. */
  readonly requests: number;
  /** Requests that did not extend the previous one's prompt. */
  readonly breaks: number;
  /** Breaks no logged event explains: the case to look into. */
  readonly unexplained: number;
  /** Requests whose repeated prefix the provider's rules would not read (under the minimum, a TTL gap, the lookback). */
  readonly misses: number;
  /** After the first request, the share of prompt tokens that repeat the previous request; `null` with fewer than two requests. */
  readonly repeatedShare: number | null;
  /** Cache-read tokens over the prompt tokens the provider reported, over every request that reported usage; `null` when none did. */
  readonly cacheReadShare: number | null;
  /** Requests whose provider reported usage (the cache-read share's requests). */
  readonly reportedRequests: number;
  /** The provider's own diagnoses, by whether the log agrees with them. */
  readonly verdicts: Readonly<Record<ProviderVerdict["agreement"], number>>;
}

/**
 * Adds up a cache report row by row, so no row is held: `add` each row, then read `figures`. The CLI,
 * the web app and a harness's own dashboard read the same figures from it.
 */
export class CacheSummary {
  #requests = 0;
  #breaks = 0;
  #unexplained = 0;
  #misses = 0;
  /** Prompt and repeated tokens of every request after the first. */
  #later = { prompt: 0, stable: 0 };
  /** Over the requests that reported usage: how many, their prompt tokens as the provider counted them, and the cache reads. */
  readonly #reported = { requests: 0, inputTokens: 0, cacheReadTokens: 0 };
  readonly #verdicts = { agree: 0, disagree: 0, "provider-only": 0, "no-verdict": 0 };

  /** Counts one row. */
  add(row: CacheRow): void {
    if (this.#requests++ > 0) {
      this.#later.prompt += row.promptTokens;
      this.#later.stable += row.stableTokens;
    }
    if (row.isBreak) this.#breaks++;
    if (row.isBreak && row.explanations.length === 0) this.#unexplained++;
    if (row.misses.length > 0) this.#misses++;
    if (row.reportedPromptTokens !== undefined) {
      this.#reported.requests++;
      this.#reported.inputTokens += row.reportedPromptTokens;
      this.#reported.cacheReadTokens += row.cacheReadTokens ?? 0;
    }
    if (row.provider !== undefined) this.#verdicts[row.provider.agreement]++;
  }

  /** The figures of the rows added so far. */
  figures(): CacheFigures {
    const { prompt, stable } = this.#later;
    return {
      requests: this.#requests,
      breaks: this.#breaks,
      unexplained: this.#unexplained,
      misses: this.#misses,
      repeatedShare: this.#requests < 2 || prompt === 0 ? null : stable / prompt,
      cacheReadShare: cacheReadShare([this.#reported]),
      reportedRequests: this.#reported.requests,
      verdicts: { ...this.#verdicts },
    };
  }
}
