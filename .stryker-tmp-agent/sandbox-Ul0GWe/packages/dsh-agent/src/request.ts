function stryNS_9fa48() {
  var g = typeof globalThis === 'object' && globalThis && globalThis.Math === Math && globalThis || new Function("return this")();
  var ns = g.__stryker__ || (g.__stryker__ = {});
  if (ns.activeMutant === undefined && g.process && g.process.env && g.process.env.__STRYKER_ACTIVE_MUTANT__) {
    ns.activeMutant = g.process.env.__STRYKER_ACTIVE_MUTANT__;
  }
  function retrieveNS() {
    return ns;
  }
  stryNS_9fa48 = retrieveNS;
  return retrieveNS();
}
stryNS_9fa48();
function stryCov_9fa48() {
  var ns = stryNS_9fa48();
  var cov = ns.mutantCoverage || (ns.mutantCoverage = {
    static: {},
    perTest: {}
  });
  function cover() {
    var c = cov.static;
    if (ns.currentTestId) {
      c = cov.perTest[ns.currentTestId] = cov.perTest[ns.currentTestId] || {};
    }
    var a = arguments;
    for (var i = 0; i < a.length; i++) {
      c[a[i]] = (c[a[i]] || 0) + 1;
    }
  }
  stryCov_9fa48 = cover;
  cover.apply(null, arguments);
}
function stryMutAct_9fa48(id) {
  var ns = stryNS_9fa48();
  function isActive(id) {
    if (ns.activeMutant === id) {
      if (ns.hitCount !== void 0 && ++ns.hitCount > ns.hitLimit) {
        throw new Error('Stryker: Hit count limit reached (' + ns.hitCount + ')');
      }
      return true;
    }
    return false;
  }
  stryMutAct_9fa48 = isActive;
  return isActive(id);
}
import { foldHeader, type EpochHeader, type RequestHeaderSnapshot } from "dsh-header";
import { freezeRequest, type FrozenGenerateOptions, type Message } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { advanceSurface, emptySurface, type SurfaceView } from "dsh-surface";
import { AgentError } from "./errors.js";
import { requestDispatchEvent, stepEndEvent } from "./events.js";

/**
 * Builds the frozen request of a loop step from the surface messages (system first), the header and
 * the previous answer's id (sent only when the header asks for cache diagnostics). The live loop and
 * `reconstructRequests` both call this, so they cannot diverge.
 */
export function buildLoopRequest(messages: readonly Message[], header: EpochHeader, signal?: AbortSignal, previousResponseId?: string): FrozenGenerateOptions {
  if (stryMutAct_9fa48("135")) {
    {}
  } else {
    stryCov_9fa48("135");
    return freezeRequest(stryMutAct_9fa48("136") ? {} : (stryCov_9fa48("136"), {
      config: header.config,
      messages,
      ...((stryMutAct_9fa48("139") ? header.tools !== undefined : stryMutAct_9fa48("138") ? false : stryMutAct_9fa48("137") ? true : (stryCov_9fa48("137", "138", "139"), header.tools === undefined)) ? {} : stryMutAct_9fa48("140") ? {} : (stryCov_9fa48("140"), {
        tools: header.tools
      })),
      ...((stryMutAct_9fa48("143") ? previousResponseId !== undefined : stryMutAct_9fa48("142") ? false : stryMutAct_9fa48("141") ? true : (stryCov_9fa48("141", "142", "143"), previousResponseId === undefined)) ? {} : stryMutAct_9fa48("144") ? {} : (stryCov_9fa48("144"), {
        previousResponseId
      })),
      ...((stryMutAct_9fa48("147") ? signal !== undefined : stryMutAct_9fa48("146") ? false : stryMutAct_9fa48("145") ? true : (stryCov_9fa48("145", "146", "147"), signal === undefined)) ? {} : stryMutAct_9fa48("148") ? {} : (stryCov_9fa48("148"), {
        signal
      }))
    }));
  }
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
export const emptyRequestFold: RequestFold = Object.freeze(stryMutAct_9fa48("149") ? {} : (stryCov_9fa48("149"), {
  surface: emptySurface,
  snapshot: undefined,
  lastAnswer: undefined,
  dispatch: undefined
}));

/** The answer a `step/end` names, under the provider of the snapshot it was dispatched with. */
function answerOf(event: LogEvent, snapshot: RequestHeaderSnapshot | undefined, previous: LastAnswer | undefined): LastAnswer | undefined {
  if (stryMutAct_9fa48("150")) {
    {}
  } else {
    stryCov_9fa48("150");
    if (stryMutAct_9fa48("153") ? (!stepEndEvent.is(event) || event.data.responseId === undefined) && snapshot === undefined : stryMutAct_9fa48("152") ? false : stryMutAct_9fa48("151") ? true : (stryCov_9fa48("151", "152", "153"), (stryMutAct_9fa48("155") ? !stepEndEvent.is(event) && event.data.responseId === undefined : stryMutAct_9fa48("154") ? false : (stryCov_9fa48("154", "155"), (stryMutAct_9fa48("156") ? stepEndEvent.is(event) : (stryCov_9fa48("156"), !stepEndEvent.is(event))) || (stryMutAct_9fa48("158") ? event.data.responseId !== undefined : stryMutAct_9fa48("157") ? false : (stryCov_9fa48("157", "158"), event.data.responseId === undefined)))) || (stryMutAct_9fa48("160") ? snapshot !== undefined : stryMutAct_9fa48("159") ? false : (stryCov_9fa48("159", "160"), snapshot === undefined)))) return previous;
    return stryMutAct_9fa48("161") ? {} : (stryCov_9fa48("161"), {
      provider: snapshot.header.config.provider,
      responseId: event.data.responseId
    });
  }
}

/**
 * The one request projection, shared by the live loop and `reconstructRequests`: the surface
 * ({@link advanceSurface}) and the header ({@link foldHeader}) folded event by event; at a
 * `request/dispatch` it yields what the step's request contains. Pure.
 */
export function foldRequestEvent(fold: RequestFold, event: LogEvent): RequestFold {
  if (stryMutAct_9fa48("162")) {
    {}
  } else {
    stryCov_9fa48("162");
    const surface = advanceSurface(fold.surface, event);
    const snapshot = foldHeader(fold.snapshot, event);
    const lastAnswer = answerOf(event, fold.snapshot, fold.lastAnswer);
    if (stryMutAct_9fa48("165") ? false : stryMutAct_9fa48("164") ? true : stryMutAct_9fa48("163") ? requestDispatchEvent.is(event) : (stryCov_9fa48("163", "164", "165"), !requestDispatchEvent.is(event))) return stryMutAct_9fa48("166") ? {} : (stryCov_9fa48("166"), {
      surface,
      snapshot,
      lastAnswer,
      dispatch: undefined
    });
    if (stryMutAct_9fa48("169") ? snapshot !== undefined : stryMutAct_9fa48("168") ? false : stryMutAct_9fa48("167") ? true : (stryCov_9fa48("167", "168", "169"), snapshot === undefined)) {
      if (stryMutAct_9fa48("170")) {
        {}
      } else {
        stryCov_9fa48("170");
        throw new AgentError(stryMutAct_9fa48("171") ? "" : (stryCov_9fa48("171"), "AGENT_RECONSTRUCTION"), stryMutAct_9fa48("172") ? `` : (stryCov_9fa48("172"), `request/dispatch at seq ${event.seq} has no request/header before it (the log was not admitted)`));
      }
    }
    const {
      turn,
      step
    } = event.data;
    const {
      config
    } = snapshot.header;
    const previousResponseId = (stryMutAct_9fa48("175") ? config.cacheDiagnostics === true || lastAnswer?.provider === config.provider : stryMutAct_9fa48("174") ? false : stryMutAct_9fa48("173") ? true : (stryCov_9fa48("173", "174", "175"), (stryMutAct_9fa48("177") ? config.cacheDiagnostics !== true : stryMutAct_9fa48("176") ? true : (stryCov_9fa48("176", "177"), config.cacheDiagnostics === (stryMutAct_9fa48("178") ? false : (stryCov_9fa48("178"), true)))) && (stryMutAct_9fa48("180") ? lastAnswer?.provider !== config.provider : stryMutAct_9fa48("179") ? true : (stryCov_9fa48("179", "180"), (stryMutAct_9fa48("181") ? lastAnswer.provider : (stryCov_9fa48("181"), lastAnswer?.provider)) === config.provider)))) ? lastAnswer.responseId : undefined;
    return stryMutAct_9fa48("182") ? {} : (stryCov_9fa48("182"), {
      surface,
      snapshot,
      lastAnswer,
      dispatch: stryMutAct_9fa48("183") ? {} : (stryCov_9fa48("183"), {
        turn,
        step,
        dispatchSeq: event.seq,
        snapshot,
        messages: surface.messages.toArray(),
        generation: surface.state.generation,
        previousResponseId
      })
    });
  }
}