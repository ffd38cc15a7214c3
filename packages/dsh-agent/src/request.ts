import { foldHeader, type EpochHeader, type RequestHeaderSnapshot } from "dsh-header";
import { freezeRequest, type FrozenGenerateOptions, type Message, type RequestFreezer } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { advanceSurface, emptySurface, type SurfaceView } from "dsh-surface";
import { AgentError } from "./errors.js";
import { requestDispatchEvent, stepEndEvent } from "./events.js";

/** Options of {@link buildLoopRequest}. */
export interface LoopRequestOptions {
  /** The step's live signal. */
  readonly signal?: AbortSignal | undefined;
  /** The previous answer's id, sent only when the header asks for cache diagnostics. */
  readonly previousResponseId?: string | undefined;
  /**
   * The session's freezer, which validates and freezes only what the previous request did not hold;
   * without one the whole request is checked.
   */
  readonly freezer?: RequestFreezer | undefined;
}

/**
 * Builds the frozen request of a loop step from the surface messages (system first) and the header.
 * The live loop and `reconstructRequests` both call this, so they cannot diverge.
 */
export function buildLoopRequest(messages: readonly Message[], header: EpochHeader, options: LoopRequestOptions = {}): FrozenGenerateOptions {
  const { signal, previousResponseId, freezer } = options;
  const request = {
    config: header.config,
    messages,
    ...(header.tools === undefined ? {} : { tools: header.tools }),
    ...(previousResponseId === undefined ? {} : { previousResponseId }),
    ...(signal === undefined ? {} : { signal }),
  };
  return freezer === undefined ? freezeRequest(request) : freezer.freeze(request);
}

/** The latest answer a provider named: which provider, and its id. */
export interface LastAnswer {
  readonly provider: string;
  readonly responseId: string;
}

/** What a `request/dispatch` event dispatched: the step, and the messages and snapshot at that point. */
export interface Dispatch {
  readonly turn: number;
  readonly step: number;
  /** The seq of the step's `request/dispatch`: the request is the fold of the log up to it. */
  readonly dispatchSeq: number;
  /** The header snapshot the request carried. */
  readonly snapshot: RequestHeaderSnapshot;
  readonly messages: readonly Message[];
  /** The surface's replace generation at the dispatch. */
  readonly generation: number;
  /**
   * The id of the latest answer before the dispatch, when the header asks for cache diagnostics and
   * that answer came from the same provider: what the request asks the provider to compare with.
   */
  readonly previousResponseId: string | undefined;
}

/** The loop's request projection after a log prefix: the surface, the latest snapshot, and the dispatch just folded. */
export interface RequestFold {
  readonly surface: SurfaceView;
  readonly snapshot: RequestHeaderSnapshot | undefined;
  /** The latest step that ended with an answer the provider named. */
  readonly lastAnswer: LastAnswer | undefined;
  /** Set when the event just folded was a `request/dispatch`. */
  readonly dispatch: Dispatch | undefined;
}

/** The fold of an empty log. */
export const emptyRequestFold: RequestFold = Object.freeze({ surface: emptySurface, snapshot: undefined, lastAnswer: undefined, dispatch: undefined });

/** The answer a `step/end` names, under the provider of the snapshot it was dispatched with. */
function answerOf(event: LogEvent, snapshot: RequestHeaderSnapshot | undefined, previous: LastAnswer | undefined): LastAnswer | undefined {
  if (!stepEndEvent.is(event) || event.data.responseId === undefined || snapshot === undefined) return previous;
  return { provider: snapshot.header.config.provider, responseId: event.data.responseId };
}

/**
 * The one request projection, shared by the live loop and `reconstructRequests`: the surface
 * ({@link advanceSurface}) and the header ({@link foldHeader}) folded event by event; at a
 * `request/dispatch` it yields what the step's request contains. Pure.
 */
export function foldRequestEvent(fold: RequestFold, event: LogEvent): RequestFold {
  const surface = advanceSurface(fold.surface, event);
  const snapshot = foldHeader(fold.snapshot, event);
  const lastAnswer = answerOf(event, fold.snapshot, fold.lastAnswer);
  if (!requestDispatchEvent.is(event)) return { surface, snapshot, lastAnswer, dispatch: undefined };
  if (snapshot === undefined) {
    throw new AgentError("AGENT_RECONSTRUCTION", `request/dispatch at seq ${event.seq} has no request/header before it (the log was not admitted)`);
  }
  const { turn, step } = event.data;
  const { config } = snapshot.header;
  const previousResponseId = config.cacheDiagnostics === true && lastAnswer?.provider === config.provider ? lastAnswer.responseId : undefined;
  const list = surface.messages;
  let messages: readonly Message[] | undefined;
  // The messages are copied out of the surface's list only when read: a rebuild that skips this
  // request (or only counts dispatches) never pays for a copy of the whole history.
  const dispatch: Dispatch = {
    turn,
    step,
    dispatchSeq: event.seq,
    snapshot,
    get messages() {
      return (messages ??= list.toArray());
    },
    generation: surface.state.generation,
    previousResponseId,
  };
  return { surface, snapshot, lastAnswer, dispatch };
}
