import { reconstructRequestStream, type PriceOf } from "dsh-agent";
import { MemoryAttachmentStore, type AttachmentStore } from "dsh-attachments";
import type { FixtureAgentSettings } from "dsh-fixtures";
import type { LlmAdapter } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { wireBody, wireSha256 } from "dsh-wire";
import { modelSession, type ModelledRequest, type ModelledSession } from "dsh-cache-report";
import { WhatIfError } from "./errors.js";
import { describeChange, forkPoint, replayWithChange, type AdapterOf, type WhatIfChange } from "./replay.js";
import { AGENT_MAX_STEPS, withRecordedStepLimit } from "./step-limit.js";

/** A break of the prefix in one or both sessions, with the logged events that cause it. */
export interface WhatIfBreak {
  readonly turn: number;
  readonly step: number;
  /** Which session breaks there. */
  readonly in: "both" | "recorded" | "whatIf";
  readonly causes: readonly string[];
}

/** The comparison `dsh what-if` prints. */
export interface WhatIfReport {
  /** The seq the change was asked for, and the turn start the session was forked at. */
  readonly at: number;
  readonly fork: number;
  readonly change: string;
  readonly recorded: Omit<ModelledSession, "bodyDigests">;
  readonly whatIf: Omit<ModelledSession, "bodyDigests">;
  /** What-if minus recorded. `inputTokens` are the prompt tokens neither read nor written. */
  readonly delta: { readonly promptTokens: number; readonly cacheReadTokens: number; readonly cacheWriteTokens: number; readonly inputTokens: number; readonly costUsd: number };
  readonly breaks: readonly WhatIfBreak[];
  /** How many request bodies of the what-if differ from the recorded ones (pairing by turn and step). */
  readonly changedRequests: number;
  /** What the replay could not play as recorded (calls without a recorded answer, answers never asked for). */
  readonly notes: readonly string[];
}

/** What a what-if needs besides the log and the change: where, and the code, settings and prices to play it with. */
export interface WhatIfOptions {
  /** The seq the change is made at: the session forks at the first turn starting there or after. */
  readonly at: number;
  /** The adapters the session ran with (or the adapter of a provider): their model defaults and wire profiles are part of each request. */
  readonly adapters: readonly LlmAdapter[] | AdapterOf;
  /** The agent settings the session ran with (step limit, compaction, tool limits); without a step limit, the one its turns from the fork on show. */
  readonly agent?: FixtureAgentSettings;
  /** The step limit the harness gives a turn that sets none (an `Agent`'s 32 by default). */
  readonly defaultMaxSteps?: number;
  /** Where the session's image objects are. */
  readonly attachments?: AttachmentStore;
  /** The price of a provider's model; without it nothing is priced. */
  readonly prices?: PriceOf;
}

function adapterOf(adapters: WhatIfOptions["adapters"]): AdapterOf {
  if (typeof adapters === "function") return adapters;
  const byProvider = new Map(adapters.map((adapter) => [adapter.provider, adapter]));
  return (provider) => byProvider.get(provider);
}

const key = (request: Pick<ModelledRequest, "turn" | "step">) => `${request.turn}.${request.step}`;

function breaksOf(recorded: readonly ModelledRequest[], whatIf: readonly ModelledRequest[]): WhatIfBreak[] {
  const before = new Map(recorded.filter((request) => request.isBreak).map((request) => [key(request), request]));
  const out: WhatIfBreak[] = [];
  for (const request of whatIf) {
    if (!request.isBreak) continue;
    const also = before.get(key(request));
    before.delete(key(request));
    out.push({ turn: request.turn, step: request.step, in: also === undefined ? "whatIf" : "both", causes: request.causes });
  }
  for (const request of before.values()) out.push({ turn: request.turn, step: request.step, in: "recorded", causes: request.causes });
  return out.sort((a, b) => a.turn - b.turn || a.step - b.step);
}

/** One step of the comparison: the recorded request, the what-if's, and the what-if's break, paired by turn and step. */
export interface PairedStep {
  readonly turn: number;
  readonly step: number;
  readonly recorded: ModelledRequest | undefined;
  readonly whatIf: ModelledRequest | undefined;
  /** The what-if request's break (alone or as recorded), when it breaks. */
  readonly broke: WhatIfBreak | undefined;
}

/** The steps of a report in the what-if's order, then the recorded steps the what-if never sent. */
export function pairedSteps(report: Pick<WhatIfReport, "recorded" | "whatIf" | "breaks">): PairedStep[] {
  const recorded = new Map(report.recorded.requests.map((request) => [key(request), request]));
  const breaks = new Map(report.breaks.filter((entry) => entry.in !== "recorded").map((entry) => [key(entry), entry]));
  const paired = report.whatIf.requests.map((request): PairedStep => {
    const before = recorded.get(key(request));
    recorded.delete(key(request));
    return { turn: request.turn, step: request.step, recorded: before, whatIf: request, broke: breaks.get(key(request)) };
  });
  for (const request of recorded.values()) paired.push({ turn: request.turn, step: request.step, recorded: request, whatIf: undefined, broke: undefined });
  return paired;
}

function withoutBodies({ bodyDigests: _digests, ...session }: ModelledSession): Omit<ModelledSession, "bodyDigests"> {
  return session;
}

/**
 * The index of the first request of `log` whose wire body does not have the SHA-256 `bodyDigests`
 * holds at the same position (a request more or fewer counts), or `undefined` when they are the same;
 * bodies are rebuilt one at a time and compared as they come.
 */
export async function firstDifference(log: EventLog, bodyDigests: readonly string[], attachments: AttachmentStore): Promise<number | undefined> {
  let index = 0;
  for await (const rebuilt of reconstructRequestStream(log)) {
    if (index >= bodyDigests.length || wireSha256(await wireBody(rebuilt, attachments)) !== bodyDigests[index]) return index;
    index++;
  }
  return index === bodyDigests.length ? undefined : index;
}

const unpriced: PriceOf = () => undefined;

/**
 * Forks `log` in memory at the first turn starting at or after `options.at`, plays `change` through
 * today's loop with the recorded answers and tool results (no provider, no key), and compares every
 * request of the recorded and the changed session under the same model of the provider's cache and
 * the same prices. A session that does not replay exactly without the change is refused
 * (`WHAT_IF_NOT_REPLAYABLE`): the comparison would not be of like with like.
 */
export async function whatIf(log: EventLog, change: WhatIfChange, options: WhatIfOptions): Promise<WhatIfReport> {
  const events = log.slice();
  const fork = forkPoint(events, options.at);
  const attachments = options.attachments ?? new MemoryAttachmentStore();
  const prices = options.prices ?? unpriced;
  const adapters = adapterOf(options.adapters);
  // The step limit is not logged: without one, the limit the recorded turns from the fork on show.
  const settings = { agent: withRecordedStepLimit(options.agent ?? {}, events.slice(fork), options.defaultMaxSteps ?? AGENT_MAX_STEPS), attachments };
  const recorded = await modelSession(log, attachments, prices);
  // The replay without a change must send exactly the recorded bytes: compared as they come, untokenized.
  const baseline = (await replayWithChange(events, fork, { kind: "none" }, settings, adapters)).log;
  const differs = await firstDifference(baseline, recorded.bodyDigests, attachments);
  if (differs !== undefined) {
    throw new WhatIfError("WHAT_IF_NOT_REPLAYABLE", `the session does not replay exactly without a change (request ${differs + 1} differs): a what-if would not compare like with like`);
  }
  const changed = await replayWithChange(events, fork, change, settings, adapters);
  const whatIfSession = await modelSession(changed.log, attachments, prices);
  const byStep = new Map(recorded.requests.map((request, i) => [key(request), recorded.bodyDigests[i]!]));
  const changedRequests = whatIfSession.requests.filter((request, i) => byStep.get(key(request)) !== whatIfSession.bodyDigests[i]).length;
  const a = recorded.totals;
  const b = whatIfSession.totals;
  const notes = [
    ...changed.overruns,
    ...(changed.unused > 0 ? [`${changed.unused} recorded answer(s) were never asked for`] : []),
    ...(changed.placeholders > 0 ? [`${changed.placeholders} compaction(s) the recording did not make summarize to a placeholder text: their summaries' length is not modelled`] : []),
  ];
  return {
    at: options.at,
    fork,
    change: describeChange(change),
    recorded: withoutBodies(recorded),
    whatIf: withoutBodies(whatIfSession),
    delta: {
      promptTokens: b.promptTokens - a.promptTokens,
      cacheReadTokens: b.cacheReadTokens - a.cacheReadTokens,
      cacheWriteTokens: b.cacheWriteTokens - a.cacheWriteTokens,
      inputTokens: b.inputTokens - a.inputTokens,
      costUsd: b.costUsd - a.costUsd,
    },
    breaks: breaksOf(recorded.requests, whatIfSession.requests),
    changedRequests,
    notes,
  };
}
