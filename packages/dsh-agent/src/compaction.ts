import { headerAdmission } from "dsh-header";
import type { GenerateOptions, LlmCallConfig, LlmRuntime, Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { userMessageEvent, type SurfaceManager, type SurfaceNode } from "dsh-surface";
import {
  compactionEndEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  stepEndEvent,
  type CompactionReason,
} from "./events.js";
import { loggedError } from "./logged-error.js";

/** When and how the agent compacts its surface. */
export interface CompactionOptions {
  /** The model's context window, in tokens. */
  readonly contextWindow: number;
  /** Compact before a step once the latest logged usage reaches this share of the window (default 0.8). */
  readonly threshold?: number;
  /** How many of the most recent surface nodes are always kept (default 4). */
  readonly keepRecent?: number;
  /** `maxTokens` of the summary call (default 1024). */
  readonly summaryMaxTokens?: number;
  /** Provider and model of the summary call; by default those of the latest request header. */
  readonly summaryModel?: { readonly provider: string; readonly model: string };
}

/** What a compaction did. */
export type CompactionResult =
  | { readonly outcome: "completed"; readonly generation: number; readonly range: { readonly start: number; readonly end: number } }
  | { readonly outcome: "failed"; readonly error: unknown }
  | { readonly outcome: "skipped"; readonly why: string };

/** The instructions of every summary call; part of the deterministic code over the logged region. */
export const SUMMARY_INSTRUCTIONS =
  "Summarize the conversation below for your own later use. Keep every fact, decision, file name, " +
  "open question and tool result that may still matter; drop pleasantries. Write plain prose.";

/**
 * The surface indexes to summarize: from node 1 (after the system prompt) to just before the
 * `keepRecent` most recent nodes, moved back so a tool call is never split from its results.
 * `undefined` when fewer than two nodes would be summarized.
 */
export function compactionRange(
  nodes: readonly SurfaceNode[],
  keepRecent: number,
): { readonly startIndex: number; readonly endIndex: number } | undefined {
  const startIndex = nodes[0]?.type === "system/message" ? 1 : 0;
  let keepFrom = Math.max(startIndex, nodes.length - keepRecent);
  while (keepFrom > startIndex && nodes[keepFrom]?.result !== undefined) keepFrom--;
  const endIndex = keepFrom - 1;
  return endIndex - startIndex >= 1 ? { startIndex, endIndex } : undefined;
}

/** A plain-text transcript of messages, the summary call's input. */
export function renderTranscript(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      switch (message.role) {
        case "system":
          return `[system]\n${message.content}`;
        case "user":
          return `[user]\n${message.content.map((block) => (block.type === "text" ? block.text : `[image ${block.image.digest}]`)).join("\n")}`;
        case "assistant":
          return `[assistant]\n${message.content
            .flatMap((block) => (block.type === "text" ? [block.text] : block.type === "tool-call" ? [`called ${block.name}(${block.arguments})`] : []))
            .join("\n")}`;
        case "tool":
          return `[tool ${message.toolName}${message.isError ? " error" : ""}]\n${message.content
            .map((block) => (block.type === "text" ? block.text : `[image ${block.image.digest}]`))
            .join("\n")}`;
      }
    })
    .join("\n\n");
}

/** The summary call for `region`: deterministic code over logged messages and the logged envelope scalars. */
export function summaryRequest(region: readonly Message[], config: LlmCallConfig): GenerateOptions {
  return {
    config,
    messages: [
      { role: "system", content: SUMMARY_INSTRUCTIONS, source: "compaction" },
      { role: "user", content: [{ type: "text", text: renderTranscript(region) }], source: "compaction" },
    ],
  };
}

/**
 * The token pressure measured from the log: input plus output tokens of the latest step that
 * reported usage, or `undefined` if none did since the last completed compaction.
 */
export function measuredTokens(log: EventLog): number | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (compactionEndEvent.is(event) && event.data.outcome === "completed") return undefined;
    if (stepEndEvent.is(event)) {
      const { usage } = event.data;
      return usage === undefined ? undefined : usage.inputTokens + usage.outputTokens;
    }
  }
  return undefined;
}

/** What a compaction needs from the agent. */
export interface CompactionContext {
  readonly log: EventLog;
  readonly surface: SurfaceManager;
  readonly runtime: LlmRuntime;
  readonly options: CompactionOptions;
  readonly signal?: AbortSignal;
}

/**
 * Summarizes a region of the surface with a one-shot call (never marked as a loop request) and
 * replaces it with the summary, logging start, summary and end. A failure logs why and leaves the
 * surface untouched.
 */
export async function compactSurface(context: CompactionContext, reason: CompactionReason, measured?: number): Promise<CompactionResult> {
  const { log, surface, runtime, options } = context;
  const nodes = surface.state.nodes.toArray();
  const span = compactionRange(nodes, options.keepRecent ?? 4);
  if (span === undefined) return { outcome: "skipped", why: "the surface is too short to compact" };
  const range = { start: nodes[span.startIndex]!.seq, end: nodes[span.endIndex]!.seq };
  await log.append(compactionStartEvent.input({ reason, range, ...(measured === undefined ? {} : { measuredTokens: measured }) }));
  try {
    const latest = log.ruleState(headerAdmission)?.header.config;
    const model = options.summaryModel ?? latest;
    if (model === undefined) throw new Error("no model to summarize with: no request has been made yet");
    const config: LlmCallConfig = { provider: model.provider, model: model.model, maxTokens: options.summaryMaxTokens ?? 1024 };
    const region = surface.deriveMessages().slice(span.startIndex, span.endIndex + 1);
    const request = summaryRequest(region, config);
    const result = await runtime.generate(context.signal === undefined ? request : { ...request, signal: context.signal });
    const summary = result.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("").trim();
    if (summary === "") throw new Error("the summary call returned no text");
    const generation = surface.generation + 1;
    await log.append([
      compactionSummaryEvent.input({ provider: config.provider, model: config.model, maxTokens: config.maxTokens!, range, summary }),
      surface.replaceInput(range, userMessageEvent.input({ content: [{ type: "text", text: `Summary of the conversation so far:\n${summary}` }], source: "compaction" })),
      compactionEndEvent.input({ outcome: "completed", generation }),
    ]);
    return { outcome: "completed", generation, range };
  } catch (error) {
    await log.append(compactionEndEvent.input({ outcome: "failed", error: loggedError(error) }));
    return { outcome: "failed", error };
  }
}
