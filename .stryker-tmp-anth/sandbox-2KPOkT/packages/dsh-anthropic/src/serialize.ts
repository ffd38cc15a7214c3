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
import type { AttachmentStore } from "dsh-attachments";
import { LlmError, addExtensionFields, canonicalJson, type FrozenGenerateOptions, type OwnFields } from "dsh-llm";
import { layoutRequest, type WireBlock, type WireLayout } from "./blocks.js";
import { breakpointPolicy } from "./breakpoints.js";
import { CLAUDE_MODELS, lookupClaudeModel, type ClaudeCatalog } from "./catalog.js";
import { thinkingFields } from "./thinking.js";
import { writeWireJson, type WireValue } from "./wire-json.js";

/** Options of {@link serializeRequest}. */
export interface SerializeOptions {
  /** Resolves image references; required as soon as a message holds an image. */
  readonly attachments?: AttachmentStore | undefined;
  /** The models whose thinking style and sampling rules apply (default `CLAUDE_MODELS`). */
  readonly catalog?: ClaudeCatalog | undefined;
}

/** Body fields the adapter writes itself; an extension may set `thinking` only when no effort did. */
const OWNED: OwnFields = stryMutAct_9fa48("119") ? {} : (stryCov_9fa48("119"), {
  own: new Set(stryMutAct_9fa48("120") ? [] : (stryCov_9fa48("120"), [stryMutAct_9fa48("121") ? "" : (stryCov_9fa48("121"), "model"), stryMutAct_9fa48("122") ? "" : (stryCov_9fa48("122"), "max_tokens"), stryMutAct_9fa48("123") ? "" : (stryCov_9fa48("123"), "system"), stryMutAct_9fa48("124") ? "" : (stryCov_9fa48("124"), "tools"), stryMutAct_9fa48("125") ? "" : (stryCov_9fa48("125"), "messages"), stryMutAct_9fa48("126") ? "" : (stryCov_9fa48("126"), "temperature"), stryMutAct_9fa48("127") ? "" : (stryCov_9fa48("127"), "stop_sequences"), stryMutAct_9fa48("128") ? "" : (stryCov_9fa48("128"), "thinking"), stryMutAct_9fa48("129") ? "" : (stryCov_9fa48("129"), "output_config"), stryMutAct_9fa48("130") ? "" : (stryCov_9fa48("130"), "diagnostics"), stryMutAct_9fa48("131") ? "" : (stryCov_9fa48("131"), "stream")])),
  fillable: new Set(stryMutAct_9fa48("132") ? [] : (stryCov_9fa48("132"), [stryMutAct_9fa48("133") ? "" : (stryCov_9fa48("133"), "thinking")]))
});
type Wire = {
  [key: string]: WireValue;
};

/** Where a request's cache breakpoints go, by block index of its layout, under its logged `cachePolicy` (none without one). */
export function placeBreakpoints(request: FrozenGenerateOptions, layout: WireLayout): number[] {
  if (stryMutAct_9fa48("134")) {
    {}
  } else {
    stryCov_9fa48("134");
    const name = request.config.cachePolicy;
    if (stryMutAct_9fa48("137") ? name !== undefined : stryMutAct_9fa48("136") ? false : stryMutAct_9fa48("135") ? true : (stryCov_9fa48("135", "136", "137"), name === undefined)) return stryMutAct_9fa48("138") ? ["Stryker was here"] : (stryCov_9fa48("138"), []);
    return breakpointPolicy(name)(layout);
  }
}

/** A block as sent: itself, or a copy with the cache marker when a breakpoint falls on it. */
function sent(block: WireBlock, ttl: string | undefined): WireBlock["value"] {
  if (stryMutAct_9fa48("139")) {
    {}
  } else {
    stryCov_9fa48("139");
    return (stryMutAct_9fa48("142") ? ttl !== undefined : stryMutAct_9fa48("141") ? false : stryMutAct_9fa48("140") ? true : (stryCov_9fa48("140", "141", "142"), ttl === undefined)) ? block.value : stryMutAct_9fa48("143") ? {} : (stryCov_9fa48("143"), {
      ...block.value,
      cache_control: stryMutAct_9fa48("144") ? {} : (stryCov_9fa48("144"), {
        type: stryMutAct_9fa48("145") ? "" : (stryCov_9fa48("145"), "ephemeral"),
        ttl
      })
    });
  }
}

/** The wire `system`, `tools` and `messages` of a layout, with markers on the chosen blocks. */
function sections(layout: WireLayout, marks: ReadonlySet<number>, ttl: string): {
  system: WireValue[];
  tools: WireValue[];
  messages: WireValue[];
} {
  if (stryMutAct_9fa48("146")) {
    {}
  } else {
    stryCov_9fa48("146");
    const system: WireValue[] = stryMutAct_9fa48("147") ? ["Stryker was here"] : (stryCov_9fa48("147"), []);
    const tools: WireValue[] = stryMutAct_9fa48("148") ? ["Stryker was here"] : (stryCov_9fa48("148"), []);
    const messages: {
      role: string;
      content: WireValue[];
    }[] = layout.roles.map(stryMutAct_9fa48("149") ? () => undefined : (stryCov_9fa48("149"), role => stryMutAct_9fa48("150") ? {} : (stryCov_9fa48("150"), {
      role,
      content: stryMutAct_9fa48("151") ? ["Stryker was here"] : (stryCov_9fa48("151"), [])
    })));
    layout.blocks.forEach((block, i) => {
      if (stryMutAct_9fa48("152")) {
        {}
      } else {
        stryCov_9fa48("152");
        const value = sent(block, marks.has(i) ? ttl : undefined);
        if (stryMutAct_9fa48("155") ? block.section !== "tools" : stryMutAct_9fa48("154") ? false : stryMutAct_9fa48("153") ? true : (stryCov_9fa48("153", "154", "155"), block.section === (stryMutAct_9fa48("156") ? "" : (stryCov_9fa48("156"), "tools")))) tools.push(value);else if (stryMutAct_9fa48("159") ? block.section !== "system" : stryMutAct_9fa48("158") ? false : stryMutAct_9fa48("157") ? true : (stryCov_9fa48("157", "158", "159"), block.section === (stryMutAct_9fa48("160") ? "" : (stryCov_9fa48("160"), "system")))) system.push(value);else messages[block.message]!.content.push(value);
      }
    });
    return stryMutAct_9fa48("161") ? {} : (stryCov_9fa48("161"), {
      system,
      tools,
      messages
    });
  }
}

/** The fields after `messages`: sampling, stop sequences, thinking, then extensions with sorted keys. */
function tailFields(request: FrozenGenerateOptions, maxTokens: number, catalog: ClaudeCatalog): Wire {
  if (stryMutAct_9fa48("162")) {
    {}
  } else {
    stryCov_9fa48("162");
    const {
      config
    } = request;
    const info = lookupClaudeModel(catalog, config.model);
    const rest: Wire = {};
    if (stryMutAct_9fa48("165") ? config.temperature === undefined : stryMutAct_9fa48("164") ? false : stryMutAct_9fa48("163") ? true : (stryCov_9fa48("163", "164", "165"), config.temperature !== undefined)) {
      if (stryMutAct_9fa48("166")) {
        {}
      } else {
        stryCov_9fa48("166");
        if (stryMutAct_9fa48("169") ? info?.temperature !== false : stryMutAct_9fa48("168") ? false : stryMutAct_9fa48("167") ? true : (stryCov_9fa48("167", "168", "169"), (stryMutAct_9fa48("170") ? info.temperature : (stryCov_9fa48("170"), info?.temperature)) === (stryMutAct_9fa48("171") ? true : (stryCov_9fa48("171"), false)))) throw new LlmError(stryMutAct_9fa48("172") ? "" : (stryCov_9fa48("172"), "LLM_INVALID_REQUEST"), stryMutAct_9fa48("173") ? `` : (stryCov_9fa48("173"), `${config.model} takes no temperature`));
        rest.temperature = config.temperature;
      }
    }
    if (stryMutAct_9fa48("176") ? config.stop === undefined : stryMutAct_9fa48("175") ? false : stryMutAct_9fa48("174") ? true : (stryCov_9fa48("174", "175", "176"), config.stop !== undefined)) rest.stop_sequences = stryMutAct_9fa48("177") ? [] : (stryCov_9fa48("177"), [...config.stop]);
    if (stryMutAct_9fa48("180") ? config.reasoningEffort === undefined : stryMutAct_9fa48("179") ? false : stryMutAct_9fa48("178") ? true : (stryCov_9fa48("178", "179", "180"), config.reasoningEffort !== undefined)) Object.assign(rest, thinkingFields(config.reasoningEffort, maxTokens, info));
    // Structured output joins the effort in output_config: {effort?, format}.
    if (stryMutAct_9fa48("183") ? config.responseFormat === undefined : stryMutAct_9fa48("182") ? false : stryMutAct_9fa48("181") ? true : (stryCov_9fa48("181", "182", "183"), config.responseFormat !== undefined)) {
      if (stryMutAct_9fa48("184")) {
        {}
      } else {
        stryCov_9fa48("184");
        const effort = rest.output_config as {
          readonly [key: string]: WireValue;
        } | undefined;
        rest.output_config = stryMutAct_9fa48("185") ? {} : (stryCov_9fa48("185"), {
          ...effort,
          format: stryMutAct_9fa48("186") ? {} : (stryCov_9fa48("186"), {
            type: stryMutAct_9fa48("187") ? "" : (stryCov_9fa48("187"), "json_schema"),
            schema: canonicalJson(config.responseFormat.schema)
          })
        });
      }
    }
    // The opt-in: the previous answer's id, or null on a session's first request.
    if (stryMutAct_9fa48("190") ? config.cacheDiagnostics !== true : stryMutAct_9fa48("189") ? false : stryMutAct_9fa48("188") ? true : (stryCov_9fa48("188", "189", "190"), config.cacheDiagnostics === (stryMutAct_9fa48("191") ? false : (stryCov_9fa48("191"), true)))) rest.diagnostics = stryMutAct_9fa48("192") ? {} : (stryCov_9fa48("192"), {
      previous_message_id: stryMutAct_9fa48("193") ? request.previousResponseId && null : (stryCov_9fa48("193"), request.previousResponseId ?? null)
    });
    addExtensionFields(rest, config.extensions, OWNED);
    rest.stream = stryMutAct_9fa48("194") ? false : (stryCov_9fa48("194"), true);
    return rest;
  }
}

/**
 * The exact HTTP body this adapter sends for `request`: compact JSON in a fixed key order (`model`,
 * `max_tokens`, `system`, `tools`, `messages`, `temperature`, `stop_sequences`, `thinking`,
 * `output_config`, `diagnostics`, sorted extensions, `stream`), content always as block arrays, tool inputs as the
 * model's own JSON text, images as verified base64, and `cache_control` markers where the logged
 * `cachePolicy` puts them. Public so a log can be checked against what was sent.
 */
export async function serializeRequest(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<string> {
  if (stryMutAct_9fa48("195")) {
    {}
  } else {
    stryCov_9fa48("195");
    const {
      config
    } = request;
    if (stryMutAct_9fa48("198") ? config.maxTokens !== undefined : stryMutAct_9fa48("197") ? false : stryMutAct_9fa48("196") ? true : (stryCov_9fa48("196", "197", "198"), config.maxTokens === undefined)) throw new LlmError(stryMutAct_9fa48("199") ? "" : (stryCov_9fa48("199"), "LLM_INVALID_REQUEST"), stryMutAct_9fa48("200") ? "" : (stryCov_9fa48("200"), "config.maxTokens is required by the Messages API"));
    const catalog = stryMutAct_9fa48("201") ? options.catalog && CLAUDE_MODELS : (stryCov_9fa48("201"), options.catalog ?? CLAUDE_MODELS);
    const layout = await layoutRequest(request.messages, request.tools, options.attachments);
    const {
      system,
      tools,
      messages
    } = sections(layout, new Set(placeBreakpoints(request, layout)), stryMutAct_9fa48("202") ? config.cacheTtl && "5m" : (stryCov_9fa48("202"), config.cacheTtl ?? (stryMutAct_9fa48("203") ? "" : (stryCov_9fa48("203"), "5m"))));
    const body: Wire = stryMutAct_9fa48("204") ? {} : (stryCov_9fa48("204"), {
      model: config.model,
      max_tokens: config.maxTokens
    });
    if (stryMutAct_9fa48("208") ? system.length <= 0 : stryMutAct_9fa48("207") ? system.length >= 0 : stryMutAct_9fa48("206") ? false : stryMutAct_9fa48("205") ? true : (stryCov_9fa48("205", "206", "207", "208"), system.length > 0)) body.system = system;
    if (stryMutAct_9fa48("212") ? tools.length <= 0 : stryMutAct_9fa48("211") ? tools.length >= 0 : stryMutAct_9fa48("210") ? false : stryMutAct_9fa48("209") ? true : (stryCov_9fa48("209", "210", "211", "212"), tools.length > 0)) body.tools = tools;
    body.messages = messages;
    return writeWireJson(stryMutAct_9fa48("213") ? {} : (stryCov_9fa48("213"), {
      ...body,
      ...tailFields(request, config.maxTokens, catalog)
    }));
  }
}

/** {@link serializeRequest} as UTF-8 bytes, the form the adapter sends. */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<Buffer> {
  if (stryMutAct_9fa48("214")) {
    {}
  } else {
    stryCov_9fa48("214");
    return Buffer.from(await serializeRequest(request, options));
  }
}