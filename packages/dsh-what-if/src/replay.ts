import { createAgentRegistry, requestDispatchEvent, turnStartEvent } from "dsh-agent";
import { replayLog, type LogReplaySettings, type ReplayOptions } from "dsh-fixtures";
import type { LlmAdapter, ToolSchema } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { SurfaceManager, toolResultEvent, userMessageEvent } from "dsh-surface";
import { WhatIfError } from "./errors.js";

/** The one change a what-if makes, from the fork point on. */
export type WhatIfChange =
  | { readonly kind: "none" }
  | { readonly kind: "system"; readonly text: string }
  | { readonly kind: "tools"; readonly tools: readonly ToolSchema[] }
  | { readonly kind: "model"; readonly model: string }
  | { readonly kind: "drop"; readonly seq: number }
  | { readonly kind: "compact"; readonly share: number };

/** What a dropped message reads as: a node cannot vanish from the log, it is replaced, as a harness would replace it. */
const REMOVED = "[removed]";

/**
 * Replaces the message logged at `seq` (a live user message or tool result of the seeded log) by
 * `[removed]`, as one logged replacement with the source `what-if`, keeping a tool result's call.
 */
async function dropMessage(log: EventLog, seq: number): Promise<void> {
  const surface = new SurfaceManager(log);
  if (!surface.nodeSeqs().includes(seq)) throw new WhatIfError("WHAT_IF_BAD_CHANGE", `seq ${seq} is no message of the session at the fork point (a message replaced before it, or not a message)`);
  const event = log.get(seq)!;
  const content = [{ type: "text" as const, text: REMOVED }];
  let replacement;
  if (userMessageEvent.is(event)) replacement = userMessageEvent.input({ content, source: "what-if" });
  else if (toolResultEvent.is(event)) replacement = toolResultEvent.input({ callId: event.data.callId, toolName: event.data.toolName, isError: event.data.isError, content, source: "what-if" });
  else throw new WhatIfError("WHAT_IF_BAD_CHANGE", `only a user message or a tool result can be dropped, and seq ${seq} is a ${event.type}`);
  await log.append(surface.replaceInput({ start: seq, end: seq }, replacement));
}

/** The change in a reader's words. */
export function describeChange(change: WhatIfChange): string {
  switch (change.kind) {
    case "none":
      return "nothing changed";
    case "system":
      return `the system prompt ${JSON.stringify(change.text.length > 60 ? `${change.text.slice(0, 57)}...` : change.text)}`;
    case "tools":
      return `the tools ${change.tools.map((tool) => tool.name).join(", ") || "(none)"}`;
    case "model":
      return `the model ${change.model}`;
    case "drop":
      return `the message logged at seq ${change.seq} replaced by "${REMOVED}"`;
    case "compact":
      return `compaction at ${Math.round(change.share * 100)} % of the context window`;
  }
}

/**
 * Where a what-if forks: the first turn that starts at or after `at`, since a replay runs whole turns.
 * A log with no turn starting there is `WHAT_IF_NO_TURN`, naming where its turns start.
 */
export function forkPoint(events: readonly LogEvent[], at: number): number {
  const starts = events.filter((event) => turnStartEvent.is(event)).map((event) => event.seq);
  const seq = starts.find((start) => start >= at);
  if (seq === undefined) throw new WhatIfError("WHAT_IF_NO_TURN", `no turn starts at or after seq ${at} (turns start at seq ${starts.join(", ") || "none"})`);
  return seq;
}

/** What a summary the recording does not have reads as in the what-if. */
export const PLACEHOLDER_SUMMARY = "[what-if: a summary the recording does not have]";

/** The agent settings that play `change`: for a compaction share, the session's context window, at that share. */
function settingsOf(change: WhatIfChange, settings: LogReplaySettings): LogReplaySettings {
  if (change.kind !== "compact") return settings;
  const compaction = settings.agent?.compaction;
  if (compaction === undefined) throw new WhatIfError("WHAT_IF_BAD_CHANGE", "a compaction share needs the context window it is a share of (the agent settings' compaction.contextWindow)");
  return { ...settings, agent: { ...settings.agent, compaction: { ...compaction, threshold: change.share } } };
}

/** The adapter of a provider, whose model defaults and wire profile (today's code) a replay sends with. */
export type AdapterOf = (provider: string) => LlmAdapter | undefined;

/** The replay options that play `change` (the adapters' defaults and wire profiles are today's code's). */
function optionsOf(change: WhatIfChange, adapterOf: AdapterOf): ReplayOptions {
  const adapterFacts: ReplayOptions = {
    modelDefaults: (provider, model) => adapterOf(provider)?.modelDefaults?.(model) ?? {},
    wireProfile: (provider, model) => adapterOf(provider)?.wireProfile?.(model),
    placeholderSummary: PLACEHOLDER_SUMMARY,
  };
  if (change.kind === "system") return { ...adapterFacts, systemPrompt: () => change.text };
  if (change.kind === "tools") return { ...adapterFacts, toolSchemas: () => change.tools };
  if (change.kind === "model") return { ...adapterFacts, selection: (recorded) => ({ ...recorded, model: change.model }) };
  if (change.kind === "drop") return { ...adapterFacts, prepare: (log) => dropMessage(log, change.seq) };
  return adapterFacts;
}

/**
 * The events of `events` forked at `fork` and replayed through today's loop with `change` applied,
 * keyless: the recorded answers and tool results served back in order. Each replayed request keeps
 * the dispatch time of the recorded request of the same step, so cache lifetimes play out as recorded.
 * Calls the recording had no answer for, and answers never asked for, are counted.
 */
export async function replayWithChange(
  events: readonly LogEvent[],
  fork: number,
  change: WhatIfChange,
  settings: LogReplaySettings,
  adapterOf: AdapterOf,
): Promise<{ readonly log: EventLog; readonly overruns: readonly string[]; readonly unused: number; readonly placeholders: number }> {
  const outcome = await replayLog(events, fork, settingsOf(change, settings), optionsOf(change, adapterOf));
  const { overruns, placeholders } = outcome;
  return { log: EventLog.from(createAgentRegistry(), retimed(outcome.events, events, fork)), overruns, unused: outcome.unused.loop, placeholders };
}

/** `replayed` with the recorded times: the seed's as they were, each later event at its step's recorded dispatch time. */
function retimed(replayed: readonly LogEvent[], recorded: readonly LogEvent[], fork: number): LogEvent[] {
  const dispatchTimes = new Map<string, number>();
  for (const event of recorded) if (requestDispatchEvent.is(event)) dispatchTimes.set(`${event.data.turn}.${event.data.step}`, event.time);
  let now = recorded[fork]?.time ?? 0;
  return replayed.map((event) => {
    if (event.seq < fork) return event;
    if (requestDispatchEvent.is(event)) now = dispatchTimes.get(`${event.data.turn}.${event.data.step}`) ?? now;
    return { ...event, time: now };
  });
}
