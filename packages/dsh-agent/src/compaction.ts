import { foldRequestHeader } from "dsh-header";
import type { LlmRuntime, Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { userMessageEvent, type SurfaceManager } from "dsh-surface";
import { AgentError } from "./errors.js";
import type { z } from "zod";
import { compactionEndEvent, compactionStartEvent, compactionSummaryEvent, type CompactionReason, type compactionForecastEvent } from "./events.js";
import { loggedError } from "./logged-error.js";
import { compactionRange, summaryRequest } from "./summary.js";

/** When and how the agent relieves token pressure: trimming old tool results first, then compaction. */
export interface CompactionOptions {
  /** The model's context window, in tokens. */
  readonly contextWindow: number;
  /** Act before a step once the latest logged usage reaches this share of the window (default 0.8). */
  readonly threshold?: number;
  /** How many of the most recent surface nodes are always kept (default 4). */
  readonly keepRecent?: number;
  /** `maxTokens` of the summary call (default 1024). */
  readonly summaryMaxTokens?: number;
  /** Provider and model of the summary call; by default those of the latest request header. */
  readonly summaryModel?: { readonly provider: string; readonly model: string };
  /** Under pressure, trim old tool results first (one batch); compact only when there was nothing to trim. */
  readonly trim?: TrimOptions;
  /**
   * Prices compacting now, when the cache would expire anyway, or not at all, once per turn under
   * pressure (for example `compactionForecast()` of `dsh-what-if`); the agent logs the forecast and
   * follows its choice. Without it, or when it gives `undefined`, the agent compacts at the threshold.
   */
  readonly forecast?: CompactionForecaster;
  /** Past this share of the window the agent compacts whatever a forecast chose (default 0.95). */
  readonly forceAt?: number;
}

/** What a compaction forecaster is asked: the log, the pressure, and the messages a compaction would summarize. */
export interface CompactionForecastInput {
  readonly log: EventLog;
  readonly measuredTokens: number;
  readonly contextWindow: number;
  /** The messages the next request would carry, and the indexes a compaction would summarize. */
  readonly messages: readonly Message[];
  readonly range: { readonly startIndex: number; readonly endIndex: number };
  readonly summaryMaxTokens: number;
}

/** A priced forecast: each plan's cost over the next requests, and the plan to follow. */
export type CompactionForecast = Omit<z.input<typeof compactionForecastEvent.schema>, "measuredTokens" | "range">;

/** Prices the compaction plans for the agent (see {@link CompactionOptions.forecast}). */
export type CompactionForecaster = (input: CompactionForecastInput) => Promise<CompactionForecast | undefined>;

/** Which tool results a trim pass shortens. */
export interface TrimOptions {
  /** Results whose text is longer than this are trimmed (default 2000). */
  readonly maxChars?: number;
  /** How many of the most recent surface nodes are never trimmed (default 4). */
  readonly keepRecent?: number;
}

/** What a compaction did. */
export type CompactionResult =
  | { readonly outcome: "completed"; readonly generation: number; readonly range: { readonly start: number; readonly end: number } }
  | { readonly outcome: "failed"; readonly error: unknown }
  | { readonly outcome: "skipped"; readonly why: string };

/** What a compaction needs from the agent. */
export interface CompactionContext {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly runtime: LlmRuntime;
  readonly options: Omit<CompactionOptions, "contextWindow">;
  readonly signal?: AbortSignal;
}

/**
 * Summarizes a region of the surface with a one-shot call (never marked as a loop request) and
 * replaces it with the summary, logging start, summary and end. A failure logs why (with a code)
 * and leaves the surface untouched.
 */
export async function compactSurface(context: CompactionContext, reason: CompactionReason, measured?: number): Promise<CompactionResult> {
  const { log, surface, runtime, options } = context;
  const nodes = surface.state.nodes.toArray();
  const span = compactionRange(nodes, options.keepRecent ?? 4);
  if (span === undefined) return { outcome: "skipped", why: "the surface is too short to compact" };
  const range = { start: nodes[span.startIndex]!.seq, end: nodes[span.endIndex]!.seq };
  await log.append(compactionStartEvent.input({ reason, range, ...(measured === undefined ? {} : { measuredTokens: measured }) }));
  try {
    const model = options.summaryModel ?? foldRequestHeader(log)?.header.config;
    if (model === undefined) throw new AgentError("AGENT_COMPACTION_NO_MODEL", "no model to summarize with: no request has been made yet");
    const scalars = { provider: model.provider, model: model.model, maxTokens: options.summaryMaxTokens ?? 1024 };
    const request = summaryRequest(surface.deriveMessages().slice(span.startIndex, span.endIndex + 1), scalars);
    const result = await runtime.generate(context.signal === undefined ? request : { ...request, signal: context.signal });
    const summary = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("").trim();
    if (summary === "") throw new AgentError("AGENT_COMPACTION_EMPTY_SUMMARY", "the summary call returned no text");
    const generation = surface.generation + 1;
    const replacement = userMessageEvent.input({ content: [{ type: "text", text: `Summary of the conversation so far:\n${summary}` }], source: "compaction" });
    await log.append([
      compactionSummaryEvent.input({ ...scalars, range, summary, ...(result.usage === undefined ? {} : { usage: result.usage }) }),
      surface.replaceInput(range, replacement),
      compactionEndEvent.input({ outcome: "completed", generation }),
    ]);
    return { outcome: "completed", generation, range };
  } catch (error) {
    await log.append(compactionEndEvent.input({ outcome: "failed", error: loggedError(error) }));
    return { outcome: "failed", error };
  }
}
