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
import type { CacheDiagnosis } from "dsh-llm";

/** The beta header Anthropic's cache diagnostics were introduced under (harmless once they are generally available). */
export const CACHE_DIAGNOSIS_BETA = stryMutAct_9fa48("68") ? "" : (stryCov_9fa48("68"), "cache-diagnosis-2026-04-07");

/** Anthropic's `diagnostics` object, as a response carries it. */
export type AnthropicDiagnostics = {
  readonly cache_miss_reason?: {
    readonly type?: unknown;
    readonly cache_missed_input_tokens?: unknown;
  } | null;
} | null;

/**
 * Anthropic's cache diagnosis in dsh's words. `null` means no divergence was found (`hit`) when the
 * request named a previous answer, and nothing to say otherwise; a `cache_miss_reason` of `null` is a
 * diagnosis still pending; `previous_message_not_found` and `unavailable` say there is no verdict.
 */
export function anthropicDiagnosis(diagnostics: AnthropicDiagnostics, comparing: boolean): CacheDiagnosis | undefined {
  if (stryMutAct_9fa48("69")) {
    {}
  } else {
    stryCov_9fa48("69");
    if (stryMutAct_9fa48("72") ? diagnostics !== null : stryMutAct_9fa48("71") ? false : stryMutAct_9fa48("70") ? true : (stryCov_9fa48("70", "71", "72"), diagnostics === null)) return comparing ? stryMutAct_9fa48("73") ? {} : (stryCov_9fa48("73"), {
      verdict: stryMutAct_9fa48("74") ? "" : (stryCov_9fa48("74"), "hit")
    }) : undefined;
    const reason = diagnostics.cache_miss_reason;
    if (stryMutAct_9fa48("77") ? reason !== undefined : stryMutAct_9fa48("76") ? false : stryMutAct_9fa48("75") ? true : (stryCov_9fa48("75", "76", "77"), reason === undefined)) return undefined;
    if (stryMutAct_9fa48("80") ? reason !== null : stryMutAct_9fa48("79") ? false : stryMutAct_9fa48("78") ? true : (stryCov_9fa48("78", "79", "80"), reason === null)) return stryMutAct_9fa48("81") ? {} : (stryCov_9fa48("81"), {
      verdict: stryMutAct_9fa48("82") ? "" : (stryCov_9fa48("82"), "pending")
    });
    const type = (stryMutAct_9fa48("85") ? typeof reason.type === "string" || reason.type !== "" : stryMutAct_9fa48("84") ? false : stryMutAct_9fa48("83") ? true : (stryCov_9fa48("83", "84", "85"), (stryMutAct_9fa48("87") ? typeof reason.type !== "string" : stryMutAct_9fa48("86") ? true : (stryCov_9fa48("86", "87"), typeof reason.type === (stryMutAct_9fa48("88") ? "" : (stryCov_9fa48("88"), "string")))) && (stryMutAct_9fa48("90") ? reason.type === "" : stryMutAct_9fa48("89") ? true : (stryCov_9fa48("89", "90"), reason.type !== (stryMutAct_9fa48("91") ? "Stryker was here!" : (stryCov_9fa48("91"), "")))))) ? reason.type : stryMutAct_9fa48("92") ? "" : (stryCov_9fa48("92"), "unknown");
    if (stryMutAct_9fa48("95") ? type !== "previous_message_not_found" : stryMutAct_9fa48("94") ? false : stryMutAct_9fa48("93") ? true : (stryCov_9fa48("93", "94", "95"), type === (stryMutAct_9fa48("96") ? "" : (stryCov_9fa48("96"), "previous_message_not_found")))) return stryMutAct_9fa48("97") ? {} : (stryCov_9fa48("97"), {
      verdict: stryMutAct_9fa48("98") ? "" : (stryCov_9fa48("98"), "not-found"),
      reason: type
    });
    if (stryMutAct_9fa48("101") ? type !== "unavailable" : stryMutAct_9fa48("100") ? false : stryMutAct_9fa48("99") ? true : (stryCov_9fa48("99", "100", "101"), type === (stryMutAct_9fa48("102") ? "" : (stryCov_9fa48("102"), "unavailable")))) return stryMutAct_9fa48("103") ? {} : (stryCov_9fa48("103"), {
      verdict: stryMutAct_9fa48("104") ? "" : (stryCov_9fa48("104"), "unavailable"),
      reason: type
    });
    const missed = reason.cache_missed_input_tokens;
    return stryMutAct_9fa48("105") ? {} : (stryCov_9fa48("105"), {
      verdict: stryMutAct_9fa48("106") ? "" : (stryCov_9fa48("106"), "miss"),
      reason: type,
      ...((stryMutAct_9fa48("109") ? typeof missed === "number" && Number.isInteger(missed) || missed >= 0 : stryMutAct_9fa48("108") ? false : stryMutAct_9fa48("107") ? true : (stryCov_9fa48("107", "108", "109"), (stryMutAct_9fa48("111") ? typeof missed === "number" || Number.isInteger(missed) : stryMutAct_9fa48("110") ? true : (stryCov_9fa48("110", "111"), (stryMutAct_9fa48("113") ? typeof missed !== "number" : stryMutAct_9fa48("112") ? true : (stryCov_9fa48("112", "113"), typeof missed === (stryMutAct_9fa48("114") ? "" : (stryCov_9fa48("114"), "number")))) && Number.isInteger(missed))) && (stryMutAct_9fa48("117") ? missed < 0 : stryMutAct_9fa48("116") ? missed > 0 : stryMutAct_9fa48("115") ? true : (stryCov_9fa48("115", "116", "117"), missed >= 0)))) ? stryMutAct_9fa48("118") ? {} : (stryCov_9fa48("118"), {
        missedTokens: missed
      }) : {})
    });
  }
}