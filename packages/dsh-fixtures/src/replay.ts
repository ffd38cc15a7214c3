import { Agent, ToolError, compactionSummaryEvent, createAgentRegistry, stepEndEvent, stepStartEvent, turnStartEvent, type AgentTool, type ReconstructedRequest } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import { LlmRuntime, type JsonObject, type LlmCallConfig, type ModelDefaults, type ToolSchema } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { assistantMessageEvent, toolResultEvent, type SurfaceEvent } from "dsh-surface";
import { CANONICAL_EPOCH } from "./canonical.js";
import type { FixtureAgentSettings } from "./manifest.js";
import { replayPlan, type ReplayPlan } from "./plan.js";
import { revisionByStep, stepKey, type Revision } from "./revisions.js";
import { Tape } from "./tape.js";

/** How a replay gets what the current code offers the model. */
export interface ReplayOptions {
  /**
   * The tools, from the current code, for a revision (called once per revision); without it the tools
   * are the revision's pinned schemas answering with the recorded results.
   */
  readonly tools?: (context: { readonly workdir: string | undefined; readonly revision: Revision }) => readonly AgentTool[];
  /** The system prompt, from the current code, for a revision; without it, the revision's pinned prompt. */
  readonly systemPrompt?: (revision: Revision) => string;
  /**
   * The tool schemas offered for a revision instead of its pinned ones, still answering each call with
   * the result the log recorded at its position (a call of a tool no longer offered fails as unknown).
   * Ignored when `tools` is given.
   */
  readonly toolSchemas?: (revision: Revision) => readonly ToolSchema[];
  /**
   * Runs once on the seeded log before the first replayed operation; what it appends is part of the
   * replayed history (a what-if's edit of an earlier message, say).
   */
  readonly prepare?: (log: EventLog) => Promise<void>;
  /** What a summary call past the recorded ones answers (a compaction the recording did not make); without it, such a call fails. */
  readonly placeholderSummary?: string;
  /** The call config of each replayed request, from the one the log recorded for its step (a what-if of another model, say). */
  readonly selection?: (recorded: LlmCallConfig, at: { readonly turn: number; readonly step: number }) => LlmCallConfig;
  /**
   * The defaults the current adapter applies for a model, so adapter-held values are recorded as such;
   * without it, the defaults the fixture recorded for that model are assumed.
   */
  readonly modelDefaults?: (provider: string, model: string) => ModelDefaults;
  /**
   * The wire profile the current adapter declares for a model (what shapes its bodies), so a change
   * to it shows as a header change; without it, the profile the fixture recorded for that model.
   */
  readonly wireProfile?: (provider: string, model: string) => JsonObject | undefined;
}

/** What the replay needs of a fixture: its log, settings, revisions and where its attachments and working directory are. */
export interface ReplaySource {
  readonly events: readonly LogEvent[];
  /** Events `0..seedLength-1` are a fork's seed: history copied in, not replayed. */
  readonly seedLength: number;
  readonly requests: readonly ReconstructedRequest[];
  readonly headers: readonly { readonly seq: number; readonly revision: string }[];
  readonly revisions: readonly Revision[];
  readonly agent: FixtureAgentSettings;
  readonly attachments: AttachmentStore | undefined;
  /** Absolute path of the working directory real tools run in. */
  readonly workdir: string | undefined;
}

/** What a replay produced. */
export interface ReplayOutcome {
  readonly events: readonly LogEvent[];
  /** Calls the replay made that the fixture had no recorded answer for. */
  readonly overruns: readonly string[];
  /** Recorded answers the replay never asked for. */
  readonly unused: { readonly loop: number; readonly summaries: number };
  /** Summary calls answered with `placeholderSummary`. */
  readonly placeholders: number;
}

/** Where a tool call sits: its turn, its step and its position among the answer's calls. Ids may repeat; positions do not. */
const callKey = (turn: number, step: number, index: number) => `${turn}.${step}.${index}`;

/** Tools with the pinned schemas that answer each call with the result the log recorded at its position. */
function recordedTools(schemas: readonly ToolSchema[], results: ReadonlyMap<string, ToolResultData>): AgentTool[] {
  return schemas.map((schema) => ({
    schema,
    async invoke(_rawArguments, context) {
      const recorded = results.get(callKey(context.turn, context.step, context.index));
      if (recorded === undefined || recorded.callId !== context.callId) {
        throw new ToolError("TOOL_FAILED", `replay: no recorded result for call ${context.index} (${context.callId}) of turn ${context.turn} step ${context.step}`);
      }
      return { content: recorded.content, isError: recorded.isError, additionalContexts: [] };
    },
  }));
}

type ToolResultData = Extract<SurfaceEvent, { type: "tool/result" }>["data"];

/** The first (unreplaced) `tool/result` of each call after the seed, by the call's position (turn, step, index in the answer). */
function recordedResults(events: readonly LogEvent[], fromSeq: number): Map<string, ToolResultData> {
  const results = new Map<string, ToolResultData>();
  let at: { turn: number; step: number } | undefined;
  let calls = new Map<string, number>();
  for (const event of events.slice(fromSeq)) {
    if (stepStartEvent.is(event)) at = event.data;
    else if (assistantMessageEvent.is(event) && event.data.replaces === undefined) {
      // Each call's position in its answer (ids are unique within one answer).
      calls = new Map(event.data.content.flatMap((block) => (block.type === "tool-call" ? [block.callId] : [])).map((id, index) => [id, index]));
    } else if (toolResultEvent.is(event) && event.data.replaces === undefined && at !== undefined) {
      const index = calls.get(event.data.callId);
      const key = index === undefined ? undefined : callKey(at.turn, at.step, index);
      if (key !== undefined && !results.has(key)) results.set(key, event.data);
    }
  }
  return results;
}

/** What the fixture's headers recorded per provider and model (the first header naming them): adapter defaults and wire profile. */
function recordedAdapterFacts(requests: readonly ReconstructedRequest[]): {
  readonly defaults: (provider: string, model: string) => ModelDefaults;
  readonly wire: (provider: string, model: string) => JsonObject | undefined;
} {
  const facts = new Map<string, { readonly defaults: ModelDefaults; readonly wire: JsonObject | undefined }>();
  for (const { snapshot } of requests) {
    const key = `${snapshot.header.config.provider} ${snapshot.header.config.model}`;
    if (!facts.has(key)) facts.set(key, { defaults: { ...snapshot.header.adapterDefaults }, wire: snapshot.header.wire });
  }
  return {
    defaults: (provider, model) => facts.get(`${provider} ${model}`)?.defaults ?? {},
    wire: (provider, model) => facts.get(`${provider} ${model}`)?.wire,
  };
}

/** The providers a session's recorded calls went to. */
function providersOf(source: ReplaySource): Set<string> {
  const providers = new Set(source.requests.map((request) => request.request.config.provider));
  for (const event of source.events) if (compactionSummaryEvent.is(event)) providers.add(event.data.provider);
  if (source.agent.compaction?.summaryModel !== undefined) providers.add(source.agent.compaction.summaryModel.provider);
  return providers;
}

/**
 * Replays a fixture through the current loop code, keyless: a fresh in-memory log (seeded with a
 * fork's seed), the recorded model answers served back in order, the tools real or recorded, the
 * prompt and tools of each step taken from the revision its recorded request used, and the
 * harness's actions (turns, resumes, compactions, trims, injected messages) read off the log.
 */
export async function replaySession(source: ReplaySource, options: ReplayOptions = {}): Promise<ReplayOutcome> {
  const plan: ReplayPlan = replayPlan(source.events, source.seedLength);
  const tape = new Tape(source.events, source.seedLength, options.placeholderSummary);
  const recorded = recordedAdapterFacts(source.requests);
  const modelDefaults = options.modelDefaults ?? recorded.defaults;
  const wireProfile = options.wireProfile ?? recorded.wire;
  const runtime = new LlmRuntime({
    adapters: [...providersOf(source)].map((provider) =>
      tape.adapter(provider, (model) => modelDefaults(provider, model), (model) => wireProfile(provider, model)),
    ),
    ...(source.attachments === undefined ? {} : { attachments: source.attachments }),
  });
  const log = new EventLog({ registry: createAgentRegistry(), events: source.events.slice(0, source.seedLength), clock: () => CANONICAL_EPOCH });
  const revisions = new Map(source.revisions.map((revision) => [revision.id, revision]));
  const revisionOf = revisionByStep(source.requests, source.headers);
  const selectionOf = new Map(source.requests.map((request) => [stepKey(request.turn, request.step), selectionFromHeader(request.snapshot.header)]));
  const results = recordedResults(source.events, source.seedLength);
  const toolsOf = new Map<string, readonly AgentTool[]>();
  const toolsFor = (revision: Revision) => {
    let tools = toolsOf.get(revision.id);
    if (tools === undefined) {
      tools = options.tools === undefined ? recordedTools(options.toolSchemas?.(revision) ?? revision.tools, results) : options.tools({ workdir: source.workdir, revision });
      toolsOf.set(revision.id, tools);
    }
    return tools;
  };
  let current = source.revisions[0];
  let agent: Agent | undefined;
  const inject = (key: string) => {
    for (const message of plan.stepMessages.get(key) ?? []) {
      if (options.tools !== undefined && message.source === "tool-context") continue; // real tools add their own
      agent?.inject(message.content, message.source);
    }
  };
  log.subscribe((batch) => {
    for (const event of batch) {
      if (turnStartEvent.is(event)) inject(stepKey(event.data.turn, 0));
      else if (stepEndEvent.is(event)) inject(stepKey(event.data.turn, event.data.step + 1));
    }
  });
  const newAgent = (config: LlmCallConfig): Agent => {
    const next = new Agent({
      log,
      runtime,
      config,
      systemPrompt: ({ turn, step }) => {
        current = revisions.get(revisionOf.get(stepKey(turn, step)) ?? "") ?? current;
        if (current === undefined) return "";
        const registry = next.tools;
        for (const tool of registry.list()) registry.unregister(tool.schema.name);
        for (const tool of toolsFor(current)) registry.register(tool);
        return options.systemPrompt === undefined ? current.prompt : options.systemPrompt(current);
      },
      ...(source.agent.maxSteps === undefined ? {} : { maxSteps: source.agent.maxSteps }),
      ...(source.agent.compaction === undefined ? {} : { compaction: source.agent.compaction }),
      ...(source.agent.retry === undefined ? {} : { retry: source.agent.retry }),
    });
    next.on("agent/pre-step", ({ turn, step }) => (plan.seriesSteps.has(stepKey(turn, step)) ? { action: "enter", startsRequestSeries: true } : undefined));
    next.on("agent/request", (_seed, at) => {
      const recorded = selectionOf.get(stepKey(at.turn, at.step));
      return recorded === undefined || options.selection === undefined ? recorded : options.selection(recorded, at);
    });
    return next;
  };
  const latestSelection = (): LlmCallConfig => {
    const latest = foldRequestHeader(log)?.header;
    return latest === undefined ? (source.requests[0] === undefined ? { provider: "replay", model: "replay" } : selectionFromHeader(source.requests[0].snapshot.header)) : selectionFromHeader(latest);
  };
  await options.prepare?.(log);
  for (const operation of plan.operations) {
    if (operation.kind === "turn") {
      if (agent === undefined || operation.newInstance) agent = newAgent(selectionOf.get(stepKey(operation.turn, 0)) ?? latestSelection());
      await agent.run(operation.input, { source: operation.source }).catch(() => undefined); // a failed turn is logged, as it was when recorded
    } else {
      agent ??= newAgent(latestSelection());
      if (operation.kind === "compact") {
        const { contextWindow: _window, ...compaction } = source.agent.compaction ?? { contextWindow: 1 };
        await agent.compact(compaction);
      } else await agent.trimToolResults(source.agent.trim ?? {});
    }
  }
  return { events: log.slice(), overruns: tape.overruns, unused: tape.unused, placeholders: tape.placeholders };
}
