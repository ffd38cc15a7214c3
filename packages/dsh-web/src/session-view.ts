import { basename } from "node:path";
import { clipText } from "dsh-base";
import { forkPoints, requestBreak, requestDispatchEvent, sessionParentEvent, stepEndEvent, turnStartEvent, type ReconstructedRequest } from "dsh-agent";
import { describeHeaderChanges, requestHeaderEvent, type EpochHeader } from "dsh-header";
import { cacheReadShare } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { advanceSurface, emptySurface, type AppendList, type SurfaceNode, type SurfaceView } from "dsh-surface";
import { nodeDelta, type NodeDelta } from "./node-delta.js";
import { choosePage, timelinePages } from "./pages.js";
import { contentText, timelineEntry } from "./timeline.js";
import type { BreakLink, ComposerView, ImageView, PageChoice, ProviderVerdictView, RequestView, SessionListItem, SessionView } from "./view-types.js";

/** Who a session is: its id, creation time, and for a fork its parent and seed length. */
export interface SessionIdentity {
  readonly sessionId: string;
  readonly createdAt: number;
  readonly parent?: { readonly sessionId: string; readonly seedLength: number };
}

/** What the caller measured of one request (a tokenizer and the provider's serializer live outside this package). */
export interface RequestFacts {
  /** Prompt tokens of the request. */
  readonly promptTokens: number;
  /** Leading prompt tokens identical to the previous request's. */
  readonly stableTokens: number;
  /** Cache-read tokens the provider reported, if it reported usage. */
  readonly cacheReadTokens: number | undefined;
  readonly isBreak: boolean;
  /** For a break, the logged events that explain it (each naming `seq N`). */
  readonly explanations: readonly string[];
  readonly misses: readonly string[];
  /** The provider's cache diagnosis and how it compares with the log, when the session asked for one. */
  readonly provider?: ProviderVerdictView;
  /** The start of the exact wire body (see `RequestView.wire`) and its whole size in bytes. */
  readonly wire?: string;
  readonly wireBytes?: number;
  readonly images?: readonly ImageView[];
}

/** What the page needs of a request when its facts are given: its step, dispatch and header snapshot. */
export type ViewedRequest = Pick<ReconstructedRequest, "turn" | "step" | "dispatchSeq" | "snapshot">;

/**
 * The inputs of {@link buildSessionView}: the requests rebuilt (`reconstructRequests`) with optional
 * facts, or, with the facts given, only what the page reads of each request.
 */
export type SessionViewInput = {
  readonly info: SessionIdentity;
  readonly events: readonly LogEvent[];
  readonly composer?: ComposerView;
  /** The most events a page shows (whole turns where they fit); without it, one page holds the whole session. */
  readonly pageEvents?: number;
  /** The page to show; without it, the last. */
  readonly page?: PageChoice;
} & (
  | {
      readonly requests: readonly ReconstructedRequest[];
      /** One per request, in the same order; without them, {@link usageFacts} (provider usage and message prefixes). */
      readonly facts?: readonly RequestFacts[] | undefined;
    }
  | { readonly requests: readonly ViewedRequest[]; readonly facts: readonly RequestFacts[] }
);

/**
 * Facts about each request from the log alone, for callers without a tokenizer: prompt tokens and
 * cache reads as the provider reported them, a break wherever a request's messages, model or tools do
 * not extend the previous request's (the events between the two dispatches named as its cause), and
 * a repeated prefix of the previous request's whole prompt otherwise.
 */
export function usageFacts(events: readonly LogEvent[], requests: readonly ReconstructedRequest[]): RequestFacts[] {
  const usage = new Map<string, { input: number; read: number }>();
  for (const event of events) {
    if (stepEndEvent.is(event) && event.data.usage !== undefined) usage.set(`${event.data.turn}.${event.data.step}`, { input: event.data.usage.inputTokens, read: event.data.usage.cacheReadTokens });
  }
  return requests.map((request, index) => {
    const reported = usage.get(`${request.turn}.${request.step}`);
    const promptTokens = reported?.input ?? 0;
    const previous = requests[index - 1];
    const isBreak = previous !== undefined && requestBreak(previous.request, request.request) !== undefined;
    const previousTokens = previous === undefined ? 0 : (usage.get(`${previous.turn}.${previous.step}`)?.input ?? 0);
    return {
      promptTokens,
      stableTokens: previous === undefined || isBreak ? 0 : Math.min(previousTokens, promptTokens),
      cacheReadTokens: reported?.read,
      isBreak,
      explanations: isBreak ? [`see the events from seq ${previous!.dispatchSeq + 1} to seq ${request.dispatchSeq - 1}`] : [],
      misses: [],
    };
  });
}

/** How much of the first prompt the list shows. */
const PROMPT_PREVIEW = 160;

/**
 * A session as the list shows it, from its events alone (no request is rebuilt); `location` (a file
 * path or a URL) gives the file name of a session that lives in a file.
 */
export function sessionListItem(info: SessionIdentity, events: readonly LogEvent[], location?: string): SessionListItem {
  const models: string[] = [];
  let prompt: string | undefined;
  let turns = 0;
  let requests = 0;
  // Over the requests that reported usage: their prompt tokens and cache reads.
  const reported = { inputTokens: 0, cacheReadTokens: 0 };
  const first = events[0];
  for (const event of events) {
    if (turnStartEvent.is(event)) turns++;
    else if (requestDispatchEvent.is(event)) requests++;
    else if (prompt === undefined && event.type === "user/message") prompt = clipText(contentText((event.data as { content?: unknown }).content).trim(), PROMPT_PREVIEW);
    else if (requestHeaderEvent.is(event)) {
      const model = `${event.data.header.config.provider}/${event.data.header.config.model}`;
      if (!models.includes(model)) models.push(model);
    } else if (stepEndEvent.is(event) && event.data.usage !== undefined) {
      reported.inputTokens += event.data.usage.inputTokens;
      reported.cacheReadTokens += event.data.usage.cacheReadTokens;
    }
  }
  return {
    id: info.sessionId,
    createdAt: info.createdAt,
    models,
    turns,
    requests,
    cacheReadShare: cacheReadShare([reported]),
    ...(prompt === undefined || prompt === "" ? {} : { prompt }),
    ...(location === undefined || location.includes("://") ? {} : { file: basename(location) }),
    ...(info.parent === undefined ? {} : { parent: { id: info.parent.sessionId, seedLength: info.parent.seedLength } }),
    ...(first !== undefined && sessionParentEvent.is(first) ? { subagentOf: { id: first.data.sessionId, callId: first.data.callId } } : {}),
  };
}

/**
 * The session page's data: of the page shown, the timeline of its events and per request dispatched
 * in it its header snapshot (with the changes from the previous one), a token split (read from the
 * cache, repeated but not read, new), the surface nodes appended or replaced since the previous
 * request (with the seq of the event that is the node) and how many were kept or removed, its break
 * and misses, wire body and verified images; and of the whole session its summary, pages, breaks and
 * fork points. `pageEvents` cuts the session into pages (see {@link timelinePages}); `page` picks
 * one, by default the last. Pure, and linear in the log for a session that only appends.
 */
export function buildSessionView(input: SessionViewInput): SessionView {
  const { events } = input;
  const requests: readonly ViewedRequest[] = input.requests;
  // Without facts, the input's type holds whole requests.
  const facts = input.facts ?? usageFacts(events, input.requests as readonly ReconstructedRequest[]);
  const pages = timelinePages(events, input.pageEvents);
  const page = choosePage(pages, input.page);
  const { from, to } = pages[page - 1] ?? { from: 0, to: -1 };
  const shown = (seq: number) => seq >= from && seq <= to;
  const numberOf = new Map(requests.map((request, index) => [request.dispatchSeq, index + 1]));
  const seedLength = input.info.parent?.seedLength;
  const timeline = events.filter((event) => shown(event.seq)).map((event) => timelineEntry(event, numberOf.get(event.seq), seedLength));
  const deltas = new Map<number, NodeDelta>();
  let previousNodes: AppendList<SurfaceNode> | undefined;
  const headersBefore = new Map<number, LogEvent>();
  let surface: SurfaceView = emptySurface;
  let pendingHeader: LogEvent | undefined;
  const replacements = new Set<number>();
  for (const event of events) {
    if (event.seq > to) break;
    surface = advanceSurface(surface, event);
    if ((event.data as { replaces?: unknown }).replaces !== undefined) replacements.add(event.seq);
    if (requestHeaderEvent.is(event)) pendingHeader = event;
    if (numberOf.has(event.seq)) {
      // Only the shown requests' deltas are read; the others only move the previous nodes on.
      if (shown(event.seq)) deltas.set(event.seq, nodeDelta(previousNodes, surface, replacements));
      previousNodes = surface.state.nodes;
      if (pendingHeader !== undefined) headersBefore.set(event.seq, pendingHeader);
      pendingHeader = undefined;
    }
  }
  const views: RequestView[] = [];
  const breaks: BreakLink[] = [];
  let previousHeader: EpochHeader | undefined;
  for (const [index, request] of requests.entries()) {
    const fact = facts[index]!;
    if (fact.isBreak) breaks.push({ number: index + 1, dispatchSeq: request.dispatchSeq });
    if (shown(request.dispatchSeq)) views.push(requestView(index + 1, request, fact, facts[index - 1]?.promptTokens, deltas.get(request.dispatchSeq), headersBefore.get(request.dispatchSeq), previousHeader));
    previousHeader = request.snapshot.header;
  }
  return {
    session: sessionListItem(input.info, events),
    pages,
    page,
    timeline,
    requests: views,
    breaks,
    forkPoints: forkPoints(events),
    ...(input.composer === undefined ? {} : { composer: input.composer }),
  };
}

/**
 * A break as the page shows it: the logged events that explain it, and how much of the previous
 * request's prompt it still repeats. A break that repeats nine tenths or more of it is `minor`:
 * whatever changed sits near the end, and the cache can still read the rest.
 */
export function breakView(fact: Pick<RequestFacts, "stableTokens" | "explanations">, previousPromptTokens: number | undefined): NonNullable<RequestView["break"]> {
  const previous = previousPromptTokens ?? 0;
  const repeated = Math.min(fact.stableTokens, previous);
  return { explanations: fact.explanations, repeatedTokens: repeated, previousTokens: previous, minor: previous > 0 && repeated >= 0.9 * previous };
}

/** One request as the page shows it, from its facts (and the previous request's prompt size), its node delta and the header snapshot written for it. */
function requestView(number: number, request: ViewedRequest, fact: RequestFacts, previousPromptTokens: number | undefined, delta: NodeDelta | undefined, header: LogEvent | undefined, previousHeader: EpochHeader | undefined): RequestView {
  const snapshot = header !== undefined && requestHeaderEvent.is(header) ? header.data : undefined;
  const cacheRead = Math.min(fact.cacheReadTokens ?? 0, fact.promptTokens);
  const repeated = Math.max(0, Math.min(fact.stableTokens, fact.promptTokens) - cacheRead);
  return {
    number,
    turn: request.turn,
    step: request.step,
    dispatchSeq: request.dispatchSeq,
    provider: request.snapshot.header.config.provider,
    model: request.snapshot.header.config.model,
    ...(snapshot === undefined
      ? {}
      : { header: { seq: header!.seq, reason: snapshot.reason, changes: previousHeader === undefined ? [] : describeHeaderChanges(previousHeader, snapshot.header) } }),
    tokens: { prompt: fact.promptTokens, cacheRead, repeated, fresh: Math.max(0, fact.promptTokens - cacheRead - repeated), reported: fact.cacheReadTokens !== undefined },
    nodes: delta?.nodes ?? [],
    kept: delta?.kept ?? 0,
    removed: delta?.removed ?? 0,
    ...(fact.isBreak ? { break: breakView(fact, previousPromptTokens) } : {}),
    misses: fact.misses,
    ...(fact.provider === undefined ? {} : { diagnosis: fact.provider }),
    ...(fact.wire === undefined ? {} : { wire: fact.wire }),
    ...(fact.wireBytes === undefined ? {} : { wireBytes: fact.wireBytes }),
    images: fact.images ?? [],
  };
}
