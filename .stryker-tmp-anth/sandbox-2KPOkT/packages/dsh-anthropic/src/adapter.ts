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
import { LlmError, postStreaming, redactError, redactor, streamResponse, unsentOnFailure, type AdapterContext, type JsonObject, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type Redactor, type StreamChunk } from "dsh-llm";
import { CLAUDE_MODELS, claudeDefaults, frozenCatalog, lookupClaudeModel, type ClaudeCatalog } from "./catalog.js";
import { CACHE_DIAGNOSIS_BETA } from "./diagnosis.js";
import { serializeRequestBytes } from "./serialize.js";
import { messagesWireProfile } from "./wire-profile.js";
import { parseMessagesStream } from "./stream.js";

/** The `anthropic-version` header every request carries. */
export const ANTHROPIC_VERSION = stryMutAct_9fa48("0") ? "" : (stryCov_9fa48("0"), "2023-06-01");

/** Options of {@link AnthropicAdapter}. */
export interface AnthropicAdapterOptions {
  /** The `config.provider` name this adapter serves (default `anthropic`). */
  readonly provider?: string;
  /**
   * The API root (default `https://api.anthropic.com`); `/v1/messages` is appended to its path. Other
   * Anthropic-format endpoints work too, e.g. `https://api.deepseek.com/anthropic`.
   */
  readonly baseUrl?: string;
  /** The API key, sent only as `x-api-key` and redacted from every error message. */
  readonly apiKey?: string | undefined;
  /** The models known to the adapter (default `CLAUDE_MODELS`): thinking style, sampling rules, retired names. */
  readonly catalog?: ClaudeCatalog;
  /** Defaults recorded in the header as adapter defaults (default: the catalog's output limit, `rolling-v1`, `5m`). */
  readonly modelDefaults?: (model: string) => ModelDefaults;
  /** Fails an attempt that receives no bytes for this long (default 120 s). */
  readonly idleTimeoutMs?: number;
  /** Fails an attempt whose response headers do not arrive within this long (default: `idleTimeoutMs`). */
  readonly headersTimeoutMs?: number;
  /**
   * Whether the endpoint ignores `cache_control` and caches prefixes on its own, as DeepSeek's
   * Anthropic-format API does (default: true for `api.deepseek.com`). Markers are sent either way; the
   * wire profile records it, so `dsh cache` explains misses by the endpoint's own rules.
   */
  readonly automaticCache?: boolean;
  readonly fetch?: typeof fetch;
}

/** Hosts whose Anthropic-format API ignores `cache_control`. */
const AUTOMATIC_CACHE_HOSTS: ReadonlySet<string> = new Set(stryMutAct_9fa48("1") ? [] : (stryCov_9fa48("1"), [stryMutAct_9fa48("2") ? "" : (stryCov_9fa48("2"), "api.deepseek.com")]));

/** The Messages API adapter: one streamed attempt per call, with the logged breakpoint policy's markers. */
export class AnthropicAdapter implements LlmAdapter {
  readonly provider: string;
  readonly #url: string;
  readonly #apiKey: string | undefined;
  readonly #redact: Redactor;
  readonly #catalog: ClaudeCatalog;
  readonly #modelDefaults: ((model: string) => ModelDefaults) | undefined;
  readonly #idleTimeoutMs: number;
  readonly #headersTimeoutMs: number;
  readonly #automaticCache: boolean;
  readonly #fetch: typeof fetch;
  constructor(options: AnthropicAdapterOptions = {}) {
    if (stryMutAct_9fa48("3")) {
      {}
    } else {
      stryCov_9fa48("3");
      this.provider = stryMutAct_9fa48("4") ? options.provider && "anthropic" : (stryCov_9fa48("4"), options.provider ?? (stryMutAct_9fa48("5") ? "" : (stryCov_9fa48("5"), "anthropic")));
      this.#url = messagesUrl(stryMutAct_9fa48("6") ? options.baseUrl && "https://api.anthropic.com" : (stryCov_9fa48("6"), options.baseUrl ?? (stryMutAct_9fa48("7") ? "" : (stryCov_9fa48("7"), "https://api.anthropic.com"))));
      this.#automaticCache = stryMutAct_9fa48("8") ? options.automaticCache && AUTOMATIC_CACHE_HOSTS.has(new URL(this.#url).hostname) : (stryCov_9fa48("8"), options.automaticCache ?? AUTOMATIC_CACHE_HOSTS.has(new URL(this.#url).hostname));
      this.#apiKey = options.apiKey;
      this.#redact = redactor(stryMutAct_9fa48("9") ? [] : (stryCov_9fa48("9"), [options.apiKey]));
      this.#catalog = frozenCatalog(stryMutAct_9fa48("10") ? options.catalog && CLAUDE_MODELS : (stryCov_9fa48("10"), options.catalog ?? CLAUDE_MODELS));
      this.#modelDefaults = options.modelDefaults;
      this.#idleTimeoutMs = stryMutAct_9fa48("11") ? options.idleTimeoutMs && 120_000 : (stryCov_9fa48("11"), options.idleTimeoutMs ?? 120_000);
      this.#headersTimeoutMs = stryMutAct_9fa48("12") ? options.headersTimeoutMs && this.#idleTimeoutMs : (stryCov_9fa48("12"), options.headersTimeoutMs ?? this.#idleTimeoutMs);
      this.#fetch = stryMutAct_9fa48("13") ? options.fetch && fetch : (stryCov_9fa48("13"), options.fetch ?? fetch);
    }
  }

  /** The defaults for `model`; a retired name throws `LLM_MODEL_RETIRED`. */
  modelDefaults(model: string): ModelDefaults {
    if (stryMutAct_9fa48("14")) {
      {}
    } else {
      stryCov_9fa48("14");
      const defaults = claudeDefaults(this.#catalog, model);
      return (stryMutAct_9fa48("17") ? this.#modelDefaults !== undefined : stryMutAct_9fa48("16") ? false : stryMutAct_9fa48("15") ? true : (stryCov_9fa48("15", "16", "17"), this.#modelDefaults === undefined)) ? defaults : this.#modelDefaults(model);
    }
  }

  /** The text with this adapter's key (and a start of it a cut left at the end) redacted. */
  redact(text: string): string {
    if (stryMutAct_9fa48("18")) {
      {}
    } else {
      stryCov_9fa48("18");
      return this.#redact(text);
    }
  }

  /** The wire profile the header logs: the catalog's rules for `model` (thinking style, sampling), which shape the body. */
  wireProfile(model: string): JsonObject {
    if (stryMutAct_9fa48("19")) {
      {}
    } else {
      stryCov_9fa48("19");
      return messagesWireProfile(lookupClaudeModel(this.#catalog, model), this.#automaticCache);
    }
  }
  async *stream(request: FrozenGenerateOptions, context: AdapterContext): AsyncGenerator<StreamChunk> {
    if (stryMutAct_9fa48("20")) {
      {}
    } else {
      stryCov_9fa48("20");
      try {
        if (stryMutAct_9fa48("21")) {
          {}
        } else {
          stryCov_9fa48("21");
          const body = await unsentOnFailure(async () => {
            if (stryMutAct_9fa48("22")) {
              {}
            } else {
              stryCov_9fa48("22");
              lookupClaudeModel(this.#catalog, request.config.model);
              return serializeRequestBytes(request, stryMutAct_9fa48("23") ? {} : (stryCov_9fa48("23"), {
                attachments: context.attachments,
                catalog: this.#catalog
              }));
            }
          });
          const headers: Record<string, string> = stryMutAct_9fa48("24") ? {} : (stryCov_9fa48("24"), {
            "content-type": stryMutAct_9fa48("25") ? "" : (stryCov_9fa48("25"), "application/json"),
            accept: stryMutAct_9fa48("26") ? "" : (stryCov_9fa48("26"), "text/event-stream"),
            "anthropic-version": ANTHROPIC_VERSION
          });
          if (stryMutAct_9fa48("29") ? this.#apiKey === undefined : stryMutAct_9fa48("28") ? false : stryMutAct_9fa48("27") ? true : (stryCov_9fa48("27", "28", "29"), this.#apiKey !== undefined)) headers[stryMutAct_9fa48("30") ? "" : (stryCov_9fa48("30"), "x-api-key")] = this.#apiKey;
          if (stryMutAct_9fa48("33") ? request.config.cacheDiagnostics !== true : stryMutAct_9fa48("32") ? false : stryMutAct_9fa48("31") ? true : (stryCov_9fa48("31", "32", "33"), request.config.cacheDiagnostics === (stryMutAct_9fa48("34") ? false : (stryCov_9fa48("34"), true)))) headers[stryMutAct_9fa48("35") ? "" : (stryCov_9fa48("35"), "anthropic-beta")] = CACHE_DIAGNOSIS_BETA;
          const response = await postStreaming(stryMutAct_9fa48("36") ? {} : (stryCov_9fa48("36"), {
            url: this.#url,
            headers,
            body,
            signal: context.signal,
            headersTimeoutMs: this.#headersTimeoutMs,
            fetch: this.#fetch
          }));
          const comparing = stryMutAct_9fa48("39") ? request.config.cacheDiagnostics === true || request.previousResponseId !== undefined : stryMutAct_9fa48("38") ? false : stryMutAct_9fa48("37") ? true : (stryCov_9fa48("37", "38", "39"), (stryMutAct_9fa48("41") ? request.config.cacheDiagnostics !== true : stryMutAct_9fa48("40") ? true : (stryCov_9fa48("40", "41"), request.config.cacheDiagnostics === (stryMutAct_9fa48("42") ? false : (stryCov_9fa48("42"), true)))) && (stryMutAct_9fa48("44") ? request.previousResponseId === undefined : stryMutAct_9fa48("43") ? true : (stryCov_9fa48("43", "44"), request.previousResponseId !== undefined)));
          yield* streamResponse(response, stryMutAct_9fa48("45") ? () => undefined : (stryCov_9fa48("45"), stream => parseMessagesStream(stream, this.#idleTimeoutMs, stryMutAct_9fa48("46") ? {} : (stryCov_9fa48("46"), {
            comparing
          }))), context.signal);
        }
      } catch (error) {
        if (stryMutAct_9fa48("47")) {
          {}
        } else {
          stryCov_9fa48("47");
          throw error instanceof LlmError ? redactError(error, this.#redact) : error;
        }
      }
    }
  }
}

/** `baseUrl` with `/v1/messages` appended to its path; credentials in the URL are refused (give `apiKey`). */
function messagesUrl(baseUrl: string): string {
  if (stryMutAct_9fa48("48")) {
    {}
  } else {
    stryCov_9fa48("48");
    let url: URL;
    try {
      if (stryMutAct_9fa48("49")) {
        {}
      } else {
        stryCov_9fa48("49");
        url = new URL(baseUrl);
      }
    } catch {
      if (stryMutAct_9fa48("50")) {
        {}
      } else {
        stryCov_9fa48("50");
        throw new LlmError(stryMutAct_9fa48("51") ? "" : (stryCov_9fa48("51"), "LLM_INVALID_REQUEST"), stryMutAct_9fa48("52") ? "" : (stryCov_9fa48("52"), "baseUrl is not a URL"));
      }
    }
    if (stryMutAct_9fa48("55") ? url.username !== "" && url.password !== "" : stryMutAct_9fa48("54") ? false : stryMutAct_9fa48("53") ? true : (stryCov_9fa48("53", "54", "55"), (stryMutAct_9fa48("57") ? url.username === "" : stryMutAct_9fa48("56") ? false : (stryCov_9fa48("56", "57"), url.username !== (stryMutAct_9fa48("58") ? "Stryker was here!" : (stryCov_9fa48("58"), "")))) || (stryMutAct_9fa48("60") ? url.password === "" : stryMutAct_9fa48("59") ? false : (stryCov_9fa48("59", "60"), url.password !== (stryMutAct_9fa48("61") ? "Stryker was here!" : (stryCov_9fa48("61"), "")))))) throw new LlmError(stryMutAct_9fa48("62") ? "" : (stryCov_9fa48("62"), "LLM_INVALID_REQUEST"), stryMutAct_9fa48("63") ? "" : (stryCov_9fa48("63"), "baseUrl carries credentials: pass the key as apiKey"));
    url.pathname = stryMutAct_9fa48("64") ? `` : (stryCov_9fa48("64"), `${url.pathname.replace(stryMutAct_9fa48("66") ? /\/$/ : stryMutAct_9fa48("65") ? /\/+/ : (stryCov_9fa48("65", "66"), /\/+$/), stryMutAct_9fa48("67") ? "Stryker was here!" : (stryCov_9fa48("67"), ""))}/v1/messages`);
    return url.href;
  }
}