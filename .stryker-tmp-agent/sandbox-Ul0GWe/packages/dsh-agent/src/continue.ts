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
import { foldRequestHeader, selectionFromHeader } from "dsh-header";
import type { LlmCallConfig } from "dsh-llm";
import type { EventLog } from "dsh-log";
import { AgentError } from "./errors.js";

/** Choices only the provider they were made for understands; a switch of provider leaves them behind. */
const PROVIDER_SPECIFIC = ["cachePolicy", "cacheTtl", "cacheDiagnostics", "extensions"] as const;

/**
 * The call config that continues the session in `log`: the selection restored from its latest
 * header (explicit choices kept, adapter defaults left to the adapter, so a resume shows no drift),
 * with `overrides` on top. A different provider drops the provider-specific choices (cache policy and
 * TTL, cache diagnostics, extensions) and needs a `model`; a log without a request needs both `provider` and `model`.
 */
export function continuedSelection(log: EventLog, overrides: Partial<LlmCallConfig> = {}): LlmCallConfig {
  if (stryMutAct_9fa48("105")) {
    {}
  } else {
    stryCov_9fa48("105");
    const latest = stryMutAct_9fa48("106") ? foldRequestHeader(log).header : (stryCov_9fa48("106"), foldRequestHeader(log)?.header);
    if (stryMutAct_9fa48("109") ? latest !== undefined : stryMutAct_9fa48("108") ? false : stryMutAct_9fa48("107") ? true : (stryCov_9fa48("107", "108", "109"), latest === undefined)) {
      if (stryMutAct_9fa48("110")) {
        {}
      } else {
        stryCov_9fa48("110");
        const {
          provider,
          model
        } = overrides;
        if (stryMutAct_9fa48("113") ? provider === undefined && model === undefined : stryMutAct_9fa48("112") ? false : stryMutAct_9fa48("111") ? true : (stryCov_9fa48("111", "112", "113"), (stryMutAct_9fa48("115") ? provider !== undefined : stryMutAct_9fa48("114") ? false : (stryCov_9fa48("114", "115"), provider === undefined)) || (stryMutAct_9fa48("117") ? model !== undefined : stryMutAct_9fa48("116") ? false : (stryCov_9fa48("116", "117"), model === undefined)))) {
          if (stryMutAct_9fa48("118")) {
            {}
          } else {
            stryCov_9fa48("118");
            throw new AgentError(stryMutAct_9fa48("119") ? "" : (stryCov_9fa48("119"), "AGENT_INVALID_OPTIONS"), stryMutAct_9fa48("120") ? "" : (stryCov_9fa48("120"), "the session has no request to continue from: give config with a provider and a model"));
          }
        }
        return stryMutAct_9fa48("121") ? {} : (stryCov_9fa48("121"), {
          ...overrides,
          provider,
          model
        });
      }
    }
    const {
      provider: loggedProvider,
      model: loggedModel,
      ...explicit
    } = selectionFromHeader(latest);
    const {
      provider = loggedProvider,
      model = (stryMutAct_9fa48("124") ? provider !== loggedProvider : stryMutAct_9fa48("123") ? false : stryMutAct_9fa48("122") ? true : (stryCov_9fa48("122", "123", "124"), provider === loggedProvider)) ? loggedModel : undefined,
      ...chosen
    } = overrides;
    if (stryMutAct_9fa48("127") ? model !== undefined : stryMutAct_9fa48("126") ? false : stryMutAct_9fa48("125") ? true : (stryCov_9fa48("125", "126", "127"), model === undefined)) {
      if (stryMutAct_9fa48("128")) {
        {}
      } else {
        stryCov_9fa48("128");
        throw new AgentError(stryMutAct_9fa48("129") ? "" : (stryCov_9fa48("129"), "AGENT_INVALID_OPTIONS"), stryMutAct_9fa48("130") ? `` : (stryCov_9fa48("130"), `switching the session from provider ${loggedProvider} to ${provider} needs a model`));
      }
    }
    if (stryMutAct_9fa48("133") ? provider === loggedProvider : stryMutAct_9fa48("132") ? false : stryMutAct_9fa48("131") ? true : (stryCov_9fa48("131", "132", "133"), provider !== loggedProvider)) for (const key of PROVIDER_SPECIFIC) delete explicit[key];
    return stryMutAct_9fa48("134") ? {} : (stryCov_9fa48("134"), {
      provider,
      model,
      ...explicit,
      ...chosen
    });
  }
}