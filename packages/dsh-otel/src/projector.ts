import { buildLoopRequest, compactionEndEvent, compactionStartEvent, compactionSummaryEvent, emptyRequestFold, foldRequestEvent, requestDispatchEvent, requestRetryEvent, stepEndEvent, toolApprovalEvent, turnEndEvent, turnStartEvent, type RequestFold } from "dsh-agent";
import { headerCauses, requestHeaderEvent, type EpochHeader, type RequestHeaderSnapshot } from "dsh-header";
import { RequestFreezer } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { assistantMessageEvent, isSurfaceEvent, toolResultEvent } from "dsh-surface";
import { addUsage } from "./attributes.js";
import { spanIdOf, traceIdOf } from "./ids.js";
import type { SpanLinkRecord, SpanRecord } from "./span.js";
import { chatSpan, compactionSpan, toolSpan, turnSpan, type BreakCause, type ChatStep, type CompactionRun, type SpanPlace, type TurnRun } from "./spans.js";
import type { LoggedRequest } from "./request.js";

/** Options of {@link SpanProjector} and {@link projectSpans}. */
export interface ProjectionOptions {
  /** The session the events belong to: `gen_ai.conversation.id`, and the seed of every id. */
  readonly sessionId: string;
  /** For a fork: its parent session and how many events were copied from it (their spans are the parent's). */
  readonly parent?: { readonly sessionId: string; readonly seedLength: number } | undefined;
  /** Put prompts, answers and tool arguments and results on spans. Off by default: spans carry `dsh.content.ref` into the log instead. */
  readonly content?: boolean;
  /** `gen_ai.agent.name` of the turn spans. */
  readonly agentName?: string;
}

/** A span the projection finished, with the request a `chat` span carried (for a driver that adds its wire hash). */
export interface ProjectedSpan {
  readonly span: SpanRecord;
  readonly request?: LoggedRequest;
}

interface OpenTurn extends Omit<TurnRun, "endMs" | "reason" | "errorCode"> {
  readonly seq: number;
  readonly traceId: string;
  readonly spanId: string;
}

type OpenStep = Omit<ChatStep, "endMs" | "end" | "answer" | "retries"> & {
  readonly seq: number;
  /** The header snapshot the request was dispatched with, for the driver's wire hash. */
  readonly snapshot: RequestHeaderSnapshot;
  readonly retries: ChatStep["retries"][number][];
  answer: ChatStep["answer"];
};

/**
 * Derives spans from a session's events one event at a time, the same whether the events come from a
 * finished log or live from a store: `push` returns the spans the event finished (a request's at its
 * `step/end`, a tool call's at its result, a turn's at its end). Ids come from (session, seq).
 */
export class SpanProjector {
  readonly #options: ProjectionOptions;
  readonly #seedLength: number;
  #fold: RequestFold = emptyRequestFold;
  readonly #freezer = new RequestFreezer();
  #causes: BreakCause[] = [];
  #resumed = false;
  #turn: OpenTurn | undefined;
  /** The seq of the turn before the open one (or of the last turn, between turns). */
  #previousTurnSeq: number | undefined;
  #step: OpenStep | undefined;
  readonly #calls = new Map<string, { readonly argumentsText: string; readonly time: number }>();
  readonly #approvals = new Map<string, { readonly allowed: boolean; readonly by: string }>();
  #compaction: (Omit<CompactionRun, "endMs" | "errorCode"> & { readonly seq: number }) | undefined;

  constructor(options: ProjectionOptions) {
    this.#options = options;
    this.#seedLength = options.parent?.seedLength ?? 0;
  }

  /** Folds one event (in seq order) and returns the spans it finished. */
  push(event: LogEvent): ProjectedSpan[] {
    // The header in force before this event: the fold's, as the loop's own request projection has it.
    const before = this.#fold.snapshot?.header;
    this.#fold = foldRequestEvent(this.#fold, event);
    const out: ProjectedSpan[] = [];
    if (requestHeaderEvent.is(event)) this.#onHeader(event, before);
    else if (isSurfaceEvent(event) && event.data.replaces !== undefined) this.#causes.push({ cause: event.type === "system/message" ? "system-prompt" : "messages", seq: event.seq });
    else if (turnStartEvent.is(event)) this.#openTurn(event);
    else if (requestDispatchEvent.is(event)) this.#openStep(event);
    else if (requestRetryEvent.is(event)) this.#step?.retries.push({ name: "dsh.request.retry", timeMs: event.time, attributes: { "dsh.attempt": event.data.attempt, "dsh.delay_ms": event.data.delayMs, "error.type": event.data.error.code } });
    else if (assistantMessageEvent.is(event)) this.#onAnswer(event);
    else if (toolApprovalEvent.is(event)) this.#approvals.set(event.data.callId, { allowed: event.data.allowed, by: event.data.by });
    else if (toolResultEvent.is(event)) out.push(...this.#closeTool(event));
    else if (stepEndEvent.is(event)) out.push(...this.#closeStep(event));
    else if (turnEndEvent.is(event)) out.push(...this.#closeTurn(event));
    else if (compactionStartEvent.is(event)) this.#compaction = { seq: event.seq, startMs: event.time, reason: event.data.reason, range: event.data.range, summary: undefined };
    else if (compactionSummaryEvent.is(event) && this.#compaction !== undefined) {
      const { provider, model, maxTokens, summary } = event.data;
      this.#compaction = { ...this.#compaction, summary: { provider, model, maxTokens, text: summary } };
    } else if (compactionEndEvent.is(event)) out.push(...this.#closeCompaction(event));
    return out.filter(({ span }) => span.attributes["dsh.seq"] as number >= this.#seedLength);
  }

  #place(seq: number, traceId: string, parentSpanId: string | undefined): SpanPlace {
    return { sessionId: this.#options.sessionId, traceId, spanId: spanIdOf(this.#options.sessionId, seq), parentSpanId, seq, content: this.#options.content === true };
  }

  /** Where a request, tool call or compaction opened at `seq` goes: under the open turn, else a root of its own trace. */
  #childPlace(seq: number): SpanPlace {
    const turn = this.#turn;
    return this.#place(seq, turn?.traceId ?? traceIdOf(this.#options.sessionId, seq), turn?.spanId);
  }

  #onHeader(event: LogEvent<"request/header", { reason: string; startsSeries?: true; header: EpochHeader }>, before: EpochHeader | undefined): void {
    const { reason, startsSeries, header } = event.data;
    if (before !== undefined) for (const cause of headerCauses(before, header)) this.#causes.push({ cause, seq: event.seq });
    if (reason === "series" || startsSeries === true) this.#causes.push({ cause: "series", seq: event.seq });
    if (reason === "resume") this.#onResume();
  }

  /**
   * A resume links the turn it happens in (it is logged with that turn's first request) to the turn
   * before; a fork's first turn links to the parent's last turn instead.
   */
  #onResume(): void {
    if (this.#turn === undefined) this.#resumed = true;
    else if (this.#turn.links.length === 0) this.#turn = { ...this.#turn, links: this.#linkBack("resume") };
  }

  #linkBack(reason: "resume" | "fork"): SpanLinkRecord[] {
    const last = this.#previousTurnSeq;
    if (last === undefined) return [];
    const sessionId = reason === "fork" ? this.#options.parent!.sessionId : this.#options.sessionId;
    return [{ traceId: traceIdOf(sessionId, last), spanId: spanIdOf(sessionId, last), attributes: { "dsh.link.reason": reason, "dsh.session.id": sessionId } }];
  }

  #openTurn(event: LogEvent<"turn/start", { turn: number }>): void {
    const { sessionId, agentName } = this.#options;
    const last = this.#previousTurnSeq;
    const forked = last !== undefined && last < this.#seedLength && event.seq >= this.#seedLength;
    const links = forked ? this.#linkBack("fork") : this.#resumed ? this.#linkBack("resume") : [];
    this.#resumed = false;
    this.#turn = { seq: event.seq, turn: event.data.turn, startMs: event.time, traceId: traceIdOf(sessionId, event.seq), spanId: spanIdOf(sessionId, event.seq), header: undefined, usage: undefined, links, agentName };
  }

  #openStep(event: LogEvent<"request/dispatch", { turn: number; step: number }>): void {
    const dispatch = this.#fold.dispatch!;
    const { snapshot } = dispatch;
    const header = snapshot.header;
    const request = buildLoopRequest(dispatch.messages, header, { previousResponseId: dispatch.previousResponseId, freezer: this.#freezer });
    this.#step = { seq: event.seq, turn: event.data.turn, step: event.data.step, startMs: event.time, header, snapshot, request, causes: this.#causes, retries: [], answer: undefined };
    this.#causes = [];
    if (this.#turn !== undefined && this.#turn.header === undefined) this.#turn = { ...this.#turn, header };
  }

  #onAnswer(event: LogEvent<"assistant/message", { content: ChatStep["answer"] & object; replaces?: unknown }>): void {
    if (event.data.replaces !== undefined) return;
    if (this.#step !== undefined) this.#step.answer = event.data.content;
    for (const block of event.data.content) if (block.type === "tool-call") this.#calls.set(block.callId, { argumentsText: block.arguments, time: event.time });
  }

  #closeStep(event: LogEvent<"step/end", ChatStep["end"] & { turn: number; step: number }>): ProjectedSpan[] {
    const open = this.#step;
    if (open === undefined || open.turn !== event.data.turn || open.step !== event.data.step) return [];
    this.#step = undefined;
    const { seq, snapshot, ...step } = open;
    if (event.data.usage !== undefined && this.#turn !== undefined) this.#turn = { ...this.#turn, usage: addUsage(this.#turn.usage, event.data.usage) };
    const span = chatSpan(this.#childPlace(seq), { ...step, endMs: event.time, end: event.data });
    return [{ span, request: { request: step.request, snapshot, turn: step.turn, step: step.step, dispatchSeq: seq, time: step.startMs } }];
  }

  #closeTool(event: LogEvent<"tool/result", { callId: string; toolName: string; content: ToolContent; isError: boolean; replaces?: unknown }>): ProjectedSpan[] {
    if (event.data.replaces !== undefined) return [];
    const { callId, toolName, content, isError } = event.data;
    const call = this.#calls.get(callId);
    this.#calls.delete(callId);
    const approval = this.#approvals.get(callId);
    this.#approvals.delete(callId);
    const run = { turn: this.#turn?.turn, callId, toolName, startMs: call?.time ?? event.time, endMs: event.time, argumentsText: call?.argumentsText, content, isError, approval };
    return [{ span: toolSpan(this.#childPlace(event.seq), run) }];
  }

  /** A compaction's summary call: a chat span of its own, under the turn it ran in (a root span when run between turns). */
  #closeCompaction(event: LogEvent<"compaction/end", { error?: { code: string } }>): ProjectedSpan[] {
    const open = this.#compaction;
    if (open === undefined) return [];
    this.#compaction = undefined;
    const { seq, ...run } = open;
    return [{ span: compactionSpan(this.#childPlace(seq), { ...run, endMs: event.time, errorCode: event.data.error?.code }) }];
  }

  #closeTurn(event: LogEvent<"turn/end", { turn: number; reason: string; error?: { code: string } }>): ProjectedSpan[] {
    const open = this.#turn;
    if (open === undefined || open.turn !== event.data.turn) return [];
    this.#turn = undefined;
    this.#previousTurnSeq = open.seq;
    const { seq, traceId, spanId: _spanId, ...run } = open;
    const span = turnSpan(this.#place(seq, traceId, undefined), { ...run, endMs: event.time, reason: event.data.reason, errorCode: event.data.error?.code });
    return [{ span }];
  }
}

type ToolContent = Parameters<typeof toolSpan>[1]["content"];

/** Every span a session's events give, in the order they finished: the pure projection behind every export. */
export function projectSpans(events: Iterable<LogEvent>, options: ProjectionOptions): ProjectedSpan[] {
  const projector = new SpanProjector(options);
  const out: ProjectedSpan[] = [];
  for (const event of events) out.push(...projector.push(event));
  return out;
}
