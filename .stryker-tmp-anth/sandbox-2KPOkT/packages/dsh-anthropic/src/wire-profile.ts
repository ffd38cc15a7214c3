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
import { LlmError, type JsonObject } from "dsh-llm";
import type { ClaudeModelInfo } from "./catalog.js";
import type { SerializeOptions } from "./serialize.js";
const INFO_KEYS = {
  contextWindow: "number",
  maxOutputTokens: "number",
  minCacheableTokens: "number",
  thinking: "string",
  xhighEffort: "boolean",
  temperature: "boolean"
} as const;

/**
 * The wire profile of the Messages adapter for a model: the catalog's rules for it, when the catalog
 * knows it, and `automaticCache: true` for an endpoint that ignores `cache_control` and caches prefixes
 * on its own (DeepSeek's Anthropic-format API), so a cache report reads its misses by that endpoint's rules.
 */
export function messagesWireProfile(info: ClaudeModelInfo | undefined, automaticCache = stryMutAct_9fa48("475") ? true : (stryCov_9fa48("475"), false)): JsonObject {
  if (stryMutAct_9fa48("476")) {
    {}
  } else {
    stryCov_9fa48("476");
    const profile: JsonObject = (stryMutAct_9fa48("479") ? info !== undefined : stryMutAct_9fa48("478") ? false : stryMutAct_9fa48("477") ? true : (stryCov_9fa48("477", "478", "479"), info === undefined)) ? stryMutAct_9fa48("480") ? {} : (stryCov_9fa48("480"), {
      api: stryMutAct_9fa48("481") ? "" : (stryCov_9fa48("481"), "messages")
    }) : stryMutAct_9fa48("482") ? {} : (stryCov_9fa48("482"), {
      api: stryMutAct_9fa48("483") ? "" : (stryCov_9fa48("483"), "messages"),
      model: stryMutAct_9fa48("484") ? {} : (stryCov_9fa48("484"), {
        ...info
      })
    });
    return automaticCache ? stryMutAct_9fa48("485") ? {} : (stryCov_9fa48("485"), {
      ...profile,
      automaticCache: stryMutAct_9fa48("486") ? false : (stryCov_9fa48("486"), true)
    }) : profile;
  }
}
function invalid(wire: JsonObject | undefined): LlmError {
  if (stryMutAct_9fa48("487")) {
    {}
  } else {
    stryCov_9fa48("487");
    return new LlmError(stryMutAct_9fa48("488") ? "" : (stryCov_9fa48("488"), "LLM_INVALID_REQUEST"), stryMutAct_9fa48("489") ? `` : (stryCov_9fa48("489"), `the header's wire profile ${stryMutAct_9fa48("490") ? JSON.stringify(wire) && "(none)" : (stryCov_9fa48("490"), JSON.stringify(wire) ?? (stryMutAct_9fa48("491") ? "" : (stryCov_9fa48("491"), "(none)")))} is not a Messages API profile`), stryMutAct_9fa48("492") ? {} : (stryCov_9fa48("492"), {
      retryable: stryMutAct_9fa48("493") ? true : (stryCov_9fa48("493"), false)
    }));
  }
}

/**
 * The serialize options a logged wire profile (a header's `wire`) stands for: a catalog holding just
 * `model`'s logged rules, so a rebuild uses what the sending adapter used, whatever catalog the
 * rebuilding process has. A profile that is not a Messages one is `LLM_INVALID_REQUEST`.
 */
export function serializeOptionsOfWire(model: string, wire: JsonObject | undefined): Pick<SerializeOptions, "catalog"> {
  if (stryMutAct_9fa48("494")) {
    {}
  } else {
    stryCov_9fa48("494");
    if (stryMutAct_9fa48("497") ? wire?.api === "messages" : stryMutAct_9fa48("496") ? false : stryMutAct_9fa48("495") ? true : (stryCov_9fa48("495", "496", "497"), (stryMutAct_9fa48("498") ? wire.api : (stryCov_9fa48("498"), wire?.api)) !== (stryMutAct_9fa48("499") ? "" : (stryCov_9fa48("499"), "messages")))) throw invalid(wire);
    const info = wire.model;
    if (stryMutAct_9fa48("502") ? info !== undefined : stryMutAct_9fa48("501") ? false : stryMutAct_9fa48("500") ? true : (stryCov_9fa48("500", "501", "502"), info === undefined)) return stryMutAct_9fa48("503") ? {} : (stryCov_9fa48("503"), {
      catalog: stryMutAct_9fa48("504") ? {} : (stryCov_9fa48("504"), {
        models: {},
        retired: {}
      })
    });
    if (stryMutAct_9fa48("507") ? (info === null || typeof info !== "object") && Array.isArray(info) : stryMutAct_9fa48("506") ? false : stryMutAct_9fa48("505") ? true : (stryCov_9fa48("505", "506", "507"), (stryMutAct_9fa48("509") ? info === null && typeof info !== "object" : stryMutAct_9fa48("508") ? false : (stryCov_9fa48("508", "509"), (stryMutAct_9fa48("511") ? info !== null : stryMutAct_9fa48("510") ? false : (stryCov_9fa48("510", "511"), info === null)) || (stryMutAct_9fa48("513") ? typeof info === "object" : stryMutAct_9fa48("512") ? false : (stryCov_9fa48("512", "513"), typeof info !== (stryMutAct_9fa48("514") ? "" : (stryCov_9fa48("514"), "object")))))) || Array.isArray(info))) throw invalid(wire);
    const fields = info as Readonly<Record<string, unknown>>;
    for (const [key, type] of Object.entries(INFO_KEYS)) if (stryMutAct_9fa48("517") ? typeof fields[key] === type : stryMutAct_9fa48("516") ? false : stryMutAct_9fa48("515") ? true : (stryCov_9fa48("515", "516", "517"), typeof fields[key] !== type)) throw invalid(wire);
    if (stryMutAct_9fa48("520") ? fields.thinking !== "adaptive" || fields.thinking !== "budget" : stryMutAct_9fa48("519") ? false : stryMutAct_9fa48("518") ? true : (stryCov_9fa48("518", "519", "520"), (stryMutAct_9fa48("522") ? fields.thinking === "adaptive" : stryMutAct_9fa48("521") ? true : (stryCov_9fa48("521", "522"), fields.thinking !== (stryMutAct_9fa48("523") ? "" : (stryCov_9fa48("523"), "adaptive")))) && (stryMutAct_9fa48("525") ? fields.thinking === "budget" : stryMutAct_9fa48("524") ? true : (stryCov_9fa48("524", "525"), fields.thinking !== (stryMutAct_9fa48("526") ? "" : (stryCov_9fa48("526"), "budget")))))) throw invalid(wire);
    return stryMutAct_9fa48("527") ? {} : (stryCov_9fa48("527"), {
      catalog: stryMutAct_9fa48("528") ? {} : (stryCov_9fa48("528"), {
        models: stryMutAct_9fa48("529") ? {} : (stryCov_9fa48("529"), {
          [model]: info as unknown as ClaudeModelInfo
        }),
        retired: {}
      })
    });
  }
}