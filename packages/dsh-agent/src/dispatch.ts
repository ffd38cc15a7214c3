import { foldRequestHeader, owedHeaderEvent, selectionFromHeader } from "dsh-header";
import { deepFreeze, markAgentLoopRequest, type FrozenGenerateOptions, type LlmCallConfig, type ToolSchema } from "dsh-llm";
import { AgentError } from "./errors.js";
import { requestDispatchEvent } from "./events.js";
import { settleSelection } from "./hooks.js";
import type { Loop } from "./loop.js";
import { buildLoopRequest } from "./request.js";

/** What the step hands to its dispatch. */
export interface DispatchStep {
  readonly turn: number;
  readonly step: number;
  /** The tools assembled for this step, in order. */
  readonly tools: readonly ToolSchema[];
  readonly startsRequestSeries: boolean;
  readonly signal: AbortSignal;
}

/** The seed of the waterfall: the pending explicit selection, else the selection restored from the latest snapshot. */
function seedOf(loop: Loop, pending: LlmCallConfig | undefined): LlmCallConfig {
  if (pending !== undefined) return pending;
  const latest = foldRequestHeader(loop.log);
  if (latest === undefined) throw new AgentError("AGENT_INVALID_OPTIONS", "no call config to start from");
  return deepFreeze(selectionFromHeader(latest.header));
}

/**
 * Runs the `agent/request` waterfall over the frozen seed, logs the owed header snapshot and the
 * `request/dispatch` boundary in one batch, and returns the request as the fold of the log exactly
 * through that boundary: deep-frozen, with the step's live signal, marked as a loop request.
 */
export async function dispatchRequest(loop: Loop, step: DispatchStep): Promise<FrozenGenerateOptions> {
  const { instance } = loop;
  const pending = instance.pendingSelection();
  const selection = await settleSelection(loop.hooks.request, seedOf(loop, pending.selection), { turn: step.turn, step: step.step });
  // From here to the append nothing awaits: the snapshot decision sees the log exactly as it is logged after.
  const owed = owedHeaderEvent({
    latest: foldRequestHeader(loop.log),
    writtenByThisInstance: instance.wroteHeader,
    selection,
    modelDefaults: loop.runtime.modelDefaults(selection.provider, selection.model),
    wire: loop.runtime.wireProfile(selection.provider, selection.model),
    tools: step.tools,
    startsRequestSeries: step.startsRequestSeries,
    followsReplace: loop.surface.generation !== instance.generationAtLastRequest,
  });
  const events = await loop.log.append([...(owed === undefined ? [] : [owed]), requestDispatchEvent.input({ turn: step.turn, step: step.step })]);
  instance.wroteHeader = true;
  instance.settleSelection(pending.version);
  return requestAt(loop, events.at(-1)!.seq, step.signal);
}

/** The request a logged `request/dispatch` at `seq` sent: the fold of the log exactly through it, deep-frozen, marked, with `signal`. */
export function requestAt(loop: Pick<Loop, "log" | "instance">, seq: number, signal: AbortSignal): FrozenGenerateOptions {
  const { instance } = loop;
  const dispatch = instance.dispatchAt(loop.log, seq);
  instance.generationAtLastRequest = dispatch.generation;
  return markAgentLoopRequest(buildLoopRequest(dispatch.messages, dispatch.snapshot.header, { signal, previousResponseId: dispatch.previousResponseId, freezer: instance.freezer }));
}
