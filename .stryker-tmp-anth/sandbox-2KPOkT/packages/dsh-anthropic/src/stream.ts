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
import { LlmError, deepFreeze, readWithIdleTimeout, type FinishReason, type StreamChunk, type TokenUsage } from "dsh-llm";
import { truncateText } from "dsh-base";
import { anthropicDiagnosis, type AnthropicDiagnostics } from "./diagnosis.js";
import { createParser, type EventSourceMessage } from "eventsource-parser";
const FINISH_REASONS: Readonly<Record<string, FinishReason>> = deepFreeze(stryMutAct_9fa48("215") ? {} : (stryCov_9fa48("215"), {
  end_turn: stryMutAct_9fa48("216") ? "" : (stryCov_9fa48("216"), "stop"),
  stop_sequence: stryMutAct_9fa48("217") ? "" : (stryCov_9fa48("217"), "stop"),
  max_tokens: stryMutAct_9fa48("218") ? "" : (stryCov_9fa48("218"), "length"),
  model_context_window_exceeded: stryMutAct_9fa48("219") ? "" : (stryCov_9fa48("219"), "length"),
  tool_use: stryMutAct_9fa48("220") ? "" : (stryCov_9fa48("220"), "tool-calls"),
  refusal: stryMutAct_9fa48("221") ? "" : (stryCov_9fa48("221"), "content-filter")
}));

/** Anthropic's usage object, as `message_start` and `message_delta` carry it (counts are cumulative). */
export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_creation?: {
    ephemeral_5m_input_tokens?: number | null;
    ephemeral_1h_input_tokens?: number | null;
  } | null;
}

/**
 * Maps Anthropic usage to `TokenUsage`. `input_tokens` is only the uncached remainder, so the whole
 * prompt is `input_tokens + cache_read_input_tokens + cache_creation_input_tokens`; cache writes keep
 * their 5-minute / 1-hour split when the provider reports it.
 */
export function mapAnthropicUsage(usage: AnthropicUsage): TokenUsage {
  if (stryMutAct_9fa48("222")) {
    {}
  } else {
    stryCov_9fa48("222");
    const read = stryMutAct_9fa48("223") ? usage.cache_read_input_tokens && 0 : (stryCov_9fa48("223"), usage.cache_read_input_tokens ?? 0);
    const written = stryMutAct_9fa48("224") ? usage.cache_creation_input_tokens && 0 : (stryCov_9fa48("224"), usage.cache_creation_input_tokens ?? 0);
    const split = stryMutAct_9fa48("225") ? usage.cache_creation && undefined : (stryCov_9fa48("225"), usage.cache_creation ?? undefined);
    return stryMutAct_9fa48("226") ? {} : (stryCov_9fa48("226"), {
      inputTokens: stryMutAct_9fa48("227") ? (usage.input_tokens ?? 0) + read - written : (stryCov_9fa48("227"), (stryMutAct_9fa48("228") ? (usage.input_tokens ?? 0) - read : (stryCov_9fa48("228"), (stryMutAct_9fa48("229") ? usage.input_tokens && 0 : (stryCov_9fa48("229"), usage.input_tokens ?? 0)) + read)) + written),
      outputTokens: stryMutAct_9fa48("230") ? usage.output_tokens && 0 : (stryCov_9fa48("230"), usage.output_tokens ?? 0),
      cacheReadTokens: read,
      cacheWriteTokens: written,
      ...((stryMutAct_9fa48("233") ? split !== undefined : stryMutAct_9fa48("232") ? false : stryMutAct_9fa48("231") ? true : (stryCov_9fa48("231", "232", "233"), split === undefined)) ? {} : stryMutAct_9fa48("234") ? {} : (stryCov_9fa48("234"), {
        cacheWrite5mTokens: stryMutAct_9fa48("235") ? split.ephemeral_5m_input_tokens && 0 : (stryCov_9fa48("235"), split.ephemeral_5m_input_tokens ?? 0),
        cacheWrite1hTokens: stryMutAct_9fa48("236") ? split.ephemeral_1h_input_tokens && 0 : (stryCov_9fa48("236"), split.ephemeral_1h_input_tokens ?? 0)
      }))
    });
  }
}
interface WireEvent {
  type?: string;
  index?: number;
  message?: {
    id?: unknown;
    usage?: AnthropicUsage;
    diagnostics?: AnthropicDiagnostics;
  };
  content_block?: {
    type?: string;
    text?: string;
    thinking?: string;
    data?: string;
    id?: unknown;
    name?: unknown;
    signature?: string;
  };
  delta?: {
    type?: string;
    text?: string;
    thinking?: string;
    signature?: string;
    partial_json?: string;
    stop_reason?: string | null;
  };
  usage?: AnthropicUsage;
  diagnostics?: AnthropicDiagnostics;
  error?: {
    type?: string;
    message?: string;
  };
}

/** An `error` event sent after HTTP 200, as a typed error (`overloaded_error` and `api_error` are retryable). */
function streamError(error: WireEvent["error"]): LlmError {
  if (stryMutAct_9fa48("237")) {
    {}
  } else {
    stryCov_9fa48("237");
    const message = stryMutAct_9fa48("238") ? `` : (stryCov_9fa48("238"), `the provider reported an error mid-stream: ${stryMutAct_9fa48("239") ? error?.type && "error" : (stryCov_9fa48("239"), (stryMutAct_9fa48("240") ? error.type : (stryCov_9fa48("240"), error?.type)) ?? (stryMutAct_9fa48("241") ? "" : (stryCov_9fa48("241"), "error")))}: ${stryMutAct_9fa48("242") ? error?.message && "unknown" : (stryCov_9fa48("242"), (stryMutAct_9fa48("243") ? error.message : (stryCov_9fa48("243"), error?.message)) ?? (stryMutAct_9fa48("244") ? "" : (stryCov_9fa48("244"), "unknown")))}`);
    switch (stryMutAct_9fa48("245") ? error.type : (stryCov_9fa48("245"), error?.type)) {
      case stryMutAct_9fa48("247") ? "" : (stryCov_9fa48("247"), "rate_limit_error"):
        if (stryMutAct_9fa48("246")) {} else {
          stryCov_9fa48("246");
          return new LlmError(stryMutAct_9fa48("248") ? "" : (stryCov_9fa48("248"), "LLM_RATE_LIMITED"), message);
        }
      case stryMutAct_9fa48("249") ? "" : (stryCov_9fa48("249"), "overloaded_error"):
      case stryMutAct_9fa48("251") ? "" : (stryCov_9fa48("251"), "api_error"):
        if (stryMutAct_9fa48("250")) {} else {
          stryCov_9fa48("250");
          return new LlmError(stryMutAct_9fa48("252") ? "" : (stryCov_9fa48("252"), "LLM_SERVER_ERROR"), message);
        }
      default:
        if (stryMutAct_9fa48("253")) {} else {
          stryCov_9fa48("253");
          return new LlmError(stryMutAct_9fa48("254") ? "" : (stryCov_9fa48("254"), "LLM_BAD_REQUEST"), message);
        }
    }
  }
}

/** The content-block index a block event is about; without one the stream is malformed. */
function blockIndex(event: WireEvent): number {
  if (stryMutAct_9fa48("255")) {
    {}
  } else {
    stryCov_9fa48("255");
    if (stryMutAct_9fa48("258") ? typeof event.index === "number" : stryMutAct_9fa48("257") ? false : stryMutAct_9fa48("256") ? true : (stryCov_9fa48("256", "257", "258"), typeof event.index !== (stryMutAct_9fa48("259") ? "" : (stryCov_9fa48("259"), "number")))) throw new LlmError(stryMutAct_9fa48("260") ? "" : (stryCov_9fa48("260"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("261") ? `` : (stryCov_9fa48("261"), `a ${String(event.type)} event has no block index`));
    return event.index;
  }
}

/** Folds Anthropic stream events into neutral chunks; one instance per response. */
class EventMapper {
  readonly #comparing: boolean;
  readonly #signatures = new Map<number, string>();
  #usage: AnthropicUsage = {};
  #stopReason: string | undefined;
  finished = stryMutAct_9fa48("262") ? true : (stryCov_9fa48("262"), false);
  constructor(comparing: boolean) {
    if (stryMutAct_9fa48("263")) {
      {}
    } else {
      stryCov_9fa48("263");
      this.#comparing = comparing;
    }
  }
  map(event: WireEvent): StreamChunk[] {
    if (stryMutAct_9fa48("264")) {
      {}
    } else {
      stryCov_9fa48("264");
      switch (event.type) {
        case stryMutAct_9fa48("266") ? "" : (stryCov_9fa48("266"), "message_start"):
          if (stryMutAct_9fa48("265")) {} else {
            stryCov_9fa48("265");
            {
              if (stryMutAct_9fa48("267")) {
                {}
              } else {
                stryCov_9fa48("267");
                this.#usage = stryMutAct_9fa48("268") ? {} : (stryCov_9fa48("268"), {
                  ...(stryMutAct_9fa48("269") ? event.message?.usage && {} : (stryCov_9fa48("269"), (stryMutAct_9fa48("270") ? event.message.usage : (stryCov_9fa48("270"), event.message?.usage)) ?? {}))
                });
                const id = stryMutAct_9fa48("271") ? event.message.id : (stryCov_9fa48("271"), event.message?.id);
                return this.#info((stryMutAct_9fa48("274") ? typeof id === "string" || id !== "" : stryMutAct_9fa48("273") ? false : stryMutAct_9fa48("272") ? true : (stryCov_9fa48("272", "273", "274"), (stryMutAct_9fa48("276") ? typeof id !== "string" : stryMutAct_9fa48("275") ? true : (stryCov_9fa48("275", "276"), typeof id === (stryMutAct_9fa48("277") ? "" : (stryCov_9fa48("277"), "string")))) && (stryMutAct_9fa48("279") ? id === "" : stryMutAct_9fa48("278") ? true : (stryCov_9fa48("278", "279"), id !== (stryMutAct_9fa48("280") ? "Stryker was here!" : (stryCov_9fa48("280"), "")))))) ? id : undefined, stryMutAct_9fa48("281") ? event.message.diagnostics : (stryCov_9fa48("281"), event.message?.diagnostics));
              }
            }
          }
        case stryMutAct_9fa48("283") ? "" : (stryCov_9fa48("283"), "content_block_start"):
          if (stryMutAct_9fa48("282")) {} else {
            stryCov_9fa48("282");
            return this.#start(blockIndex(event), stryMutAct_9fa48("284") ? event.content_block && {} : (stryCov_9fa48("284"), event.content_block ?? {}));
          }
        case stryMutAct_9fa48("286") ? "" : (stryCov_9fa48("286"), "content_block_delta"):
          if (stryMutAct_9fa48("285")) {} else {
            stryCov_9fa48("285");
            return this.#delta(blockIndex(event), stryMutAct_9fa48("287") ? event.delta && {} : (stryCov_9fa48("287"), event.delta ?? {}));
          }
        case stryMutAct_9fa48("289") ? "" : (stryCov_9fa48("289"), "content_block_stop"):
          if (stryMutAct_9fa48("288")) {} else {
            stryCov_9fa48("288");
            {
              if (stryMutAct_9fa48("290")) {
                {}
              } else {
                stryCov_9fa48("290");
                const signature = this.#signatures.get(blockIndex(event));
                return (stryMutAct_9fa48("293") ? signature === undefined && signature === "" : stryMutAct_9fa48("292") ? false : stryMutAct_9fa48("291") ? true : (stryCov_9fa48("291", "292", "293"), (stryMutAct_9fa48("295") ? signature !== undefined : stryMutAct_9fa48("294") ? false : (stryCov_9fa48("294", "295"), signature === undefined)) || (stryMutAct_9fa48("297") ? signature !== "" : stryMutAct_9fa48("296") ? false : (stryCov_9fa48("296", "297"), signature === (stryMutAct_9fa48("298") ? "Stryker was here!" : (stryCov_9fa48("298"), "")))))) ? stryMutAct_9fa48("299") ? ["Stryker was here"] : (stryCov_9fa48("299"), []) : stryMutAct_9fa48("300") ? [] : (stryCov_9fa48("300"), [stryMutAct_9fa48("301") ? {} : (stryCov_9fa48("301"), {
                  type: stryMutAct_9fa48("302") ? "" : (stryCov_9fa48("302"), "reasoning-signature"),
                  signature,
                  block: blockIndex(event)
                })]);
              }
            }
          }
        case stryMutAct_9fa48("304") ? "" : (stryCov_9fa48("304"), "message_delta"):
          if (stryMutAct_9fa48("303")) {} else {
            stryCov_9fa48("303");
            // Usage here is cumulative: it replaces what message_start said, field by field.
            this.#usage = stryMutAct_9fa48("305") ? {} : (stryCov_9fa48("305"), {
              ...this.#usage,
              ...Object.fromEntries(stryMutAct_9fa48("306") ? Object.entries(event.usage ?? {}) : (stryCov_9fa48("306"), Object.entries(stryMutAct_9fa48("307") ? event.usage && {} : (stryCov_9fa48("307"), event.usage ?? {})).filter(stryMutAct_9fa48("308") ? () => undefined : (stryCov_9fa48("308"), ([, value]) => stryMutAct_9fa48("311") ? value !== null || value !== undefined : stryMutAct_9fa48("310") ? false : stryMutAct_9fa48("309") ? true : (stryCov_9fa48("309", "310", "311"), (stryMutAct_9fa48("313") ? value === null : stryMutAct_9fa48("312") ? true : (stryCov_9fa48("312", "313"), value !== null)) && (stryMutAct_9fa48("315") ? value === undefined : stryMutAct_9fa48("314") ? true : (stryCov_9fa48("314", "315"), value !== undefined)))))))
            });
            if (stryMutAct_9fa48("318") ? typeof event.delta?.stop_reason !== "string" : stryMutAct_9fa48("317") ? false : stryMutAct_9fa48("316") ? true : (stryCov_9fa48("316", "317", "318"), typeof (stryMutAct_9fa48("319") ? event.delta.stop_reason : (stryCov_9fa48("319"), event.delta?.stop_reason)) === (stryMutAct_9fa48("320") ? "" : (stryCov_9fa48("320"), "string")))) this.#stopReason = event.delta.stop_reason;
            return this.#info(undefined, event.diagnostics);
          }
        case stryMutAct_9fa48("322") ? "" : (stryCov_9fa48("322"), "message_stop"):
          if (stryMutAct_9fa48("321")) {} else {
            stryCov_9fa48("321");
            this.finished = stryMutAct_9fa48("323") ? false : (stryCov_9fa48("323"), true);
            return stryMutAct_9fa48("324") ? [] : (stryCov_9fa48("324"), [stryMutAct_9fa48("325") ? {} : (stryCov_9fa48("325"), {
              type: stryMutAct_9fa48("326") ? "" : (stryCov_9fa48("326"), "usage"),
              usage: mapAnthropicUsage(this.#usage)
            }), stryMutAct_9fa48("327") ? {} : (stryCov_9fa48("327"), {
              type: stryMutAct_9fa48("328") ? "" : (stryCov_9fa48("328"), "finish"),
              reason: stryMutAct_9fa48("329") ? FINISH_REASONS[this.#stopReason ?? ""] && "other" : (stryCov_9fa48("329"), FINISH_REASONS[stryMutAct_9fa48("330") ? this.#stopReason && "" : (stryCov_9fa48("330"), this.#stopReason ?? (stryMutAct_9fa48("331") ? "Stryker was here!" : (stryCov_9fa48("331"), "")))] ?? (stryMutAct_9fa48("332") ? "" : (stryCov_9fa48("332"), "other")))
            })]);
          }
        case stryMutAct_9fa48("334") ? "" : (stryCov_9fa48("334"), "ping"):
          if (stryMutAct_9fa48("333")) {} else {
            stryCov_9fa48("333");
            return stryMutAct_9fa48("335") ? ["Stryker was here"] : (stryCov_9fa48("335"), []);
          }
        case stryMutAct_9fa48("337") ? "" : (stryCov_9fa48("337"), "error"):
          if (stryMutAct_9fa48("336")) {} else {
            stryCov_9fa48("336");
            throw streamError(event.error);
          }
        default:
          if (stryMutAct_9fa48("338")) {} else {
            stryCov_9fa48("338");
            throw new LlmError(stryMutAct_9fa48("339") ? "" : (stryCov_9fa48("339"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("340") ? `` : (stryCov_9fa48("340"), `unknown stream event ${String(event.type)}`));
          }
      }
    }
  }

  /** The answer's id and the provider's cache diagnosis, when the event carries either. */
  #info(responseId: string | undefined, diagnostics: AnthropicDiagnostics | undefined): StreamChunk[] {
    if (stryMutAct_9fa48("341")) {
      {}
    } else {
      stryCov_9fa48("341");
      const cacheDiagnosis = (stryMutAct_9fa48("344") ? diagnostics !== undefined : stryMutAct_9fa48("343") ? false : stryMutAct_9fa48("342") ? true : (stryCov_9fa48("342", "343", "344"), diagnostics === undefined)) ? undefined : anthropicDiagnosis(diagnostics, this.#comparing);
      if (stryMutAct_9fa48("347") ? responseId === undefined || cacheDiagnosis === undefined : stryMutAct_9fa48("346") ? false : stryMutAct_9fa48("345") ? true : (stryCov_9fa48("345", "346", "347"), (stryMutAct_9fa48("349") ? responseId !== undefined : stryMutAct_9fa48("348") ? true : (stryCov_9fa48("348", "349"), responseId === undefined)) && (stryMutAct_9fa48("351") ? cacheDiagnosis !== undefined : stryMutAct_9fa48("350") ? true : (stryCov_9fa48("350", "351"), cacheDiagnosis === undefined)))) return stryMutAct_9fa48("352") ? ["Stryker was here"] : (stryCov_9fa48("352"), []);
      return stryMutAct_9fa48("353") ? [] : (stryCov_9fa48("353"), [stryMutAct_9fa48("354") ? {} : (stryCov_9fa48("354"), {
        type: stryMutAct_9fa48("355") ? "" : (stryCov_9fa48("355"), "response-info"),
        ...((stryMutAct_9fa48("358") ? responseId !== undefined : stryMutAct_9fa48("357") ? false : stryMutAct_9fa48("356") ? true : (stryCov_9fa48("356", "357", "358"), responseId === undefined)) ? {} : stryMutAct_9fa48("359") ? {} : (stryCov_9fa48("359"), {
          responseId
        })),
        ...((stryMutAct_9fa48("362") ? cacheDiagnosis !== undefined : stryMutAct_9fa48("361") ? false : stryMutAct_9fa48("360") ? true : (stryCov_9fa48("360", "361", "362"), cacheDiagnosis === undefined)) ? {} : stryMutAct_9fa48("363") ? {} : (stryCov_9fa48("363"), {
          cacheDiagnosis
        }))
      })]);
    }
  }
  #start(index: number, block: NonNullable<WireEvent["content_block"]>): StreamChunk[] {
    if (stryMutAct_9fa48("364")) {
      {}
    } else {
      stryCov_9fa48("364");
      switch (block.type) {
        case stryMutAct_9fa48("366") ? "" : (stryCov_9fa48("366"), "text"):
          if (stryMutAct_9fa48("365")) {} else {
            stryCov_9fa48("365");
            return block.text ? stryMutAct_9fa48("367") ? [] : (stryCov_9fa48("367"), [stryMutAct_9fa48("368") ? {} : (stryCov_9fa48("368"), {
              type: stryMutAct_9fa48("369") ? "" : (stryCov_9fa48("369"), "text-delta"),
              text: block.text,
              block: index
            })]) : stryMutAct_9fa48("370") ? ["Stryker was here"] : (stryCov_9fa48("370"), []);
          }
        case stryMutAct_9fa48("372") ? "" : (stryCov_9fa48("372"), "thinking"):
          if (stryMutAct_9fa48("371")) {} else {
            stryCov_9fa48("371");
            this.#signatures.set(index, stryMutAct_9fa48("373") ? block.signature && "" : (stryCov_9fa48("373"), block.signature ?? (stryMutAct_9fa48("374") ? "Stryker was here!" : (stryCov_9fa48("374"), ""))));
            return block.thinking ? stryMutAct_9fa48("375") ? [] : (stryCov_9fa48("375"), [stryMutAct_9fa48("376") ? {} : (stryCov_9fa48("376"), {
              type: stryMutAct_9fa48("377") ? "" : (stryCov_9fa48("377"), "reasoning-delta"),
              text: block.thinking,
              block: index
            })]) : stryMutAct_9fa48("378") ? ["Stryker was here"] : (stryCov_9fa48("378"), []);
          }
        case stryMutAct_9fa48("380") ? "" : (stryCov_9fa48("380"), "redacted_thinking"):
          if (stryMutAct_9fa48("379")) {} else {
            stryCov_9fa48("379");
            return stryMutAct_9fa48("381") ? [] : (stryCov_9fa48("381"), [stryMutAct_9fa48("382") ? {} : (stryCov_9fa48("382"), {
              type: stryMutAct_9fa48("383") ? "" : (stryCov_9fa48("383"), "redacted-reasoning"),
              data: stryMutAct_9fa48("384") ? block.data && "" : (stryCov_9fa48("384"), block.data ?? (stryMutAct_9fa48("385") ? "Stryker was here!" : (stryCov_9fa48("385"), "")))
            })]);
          }
        case stryMutAct_9fa48("387") ? "" : (stryCov_9fa48("387"), "tool_use"):
          if (stryMutAct_9fa48("386")) {} else {
            stryCov_9fa48("386");
            if (stryMutAct_9fa48("390") ? typeof block.id !== "string" && typeof block.name !== "string" : stryMutAct_9fa48("389") ? false : stryMutAct_9fa48("388") ? true : (stryCov_9fa48("388", "389", "390"), (stryMutAct_9fa48("392") ? typeof block.id === "string" : stryMutAct_9fa48("391") ? false : (stryCov_9fa48("391", "392"), typeof block.id !== (stryMutAct_9fa48("393") ? "" : (stryCov_9fa48("393"), "string")))) || (stryMutAct_9fa48("395") ? typeof block.name === "string" : stryMutAct_9fa48("394") ? false : (stryCov_9fa48("394", "395"), typeof block.name !== (stryMutAct_9fa48("396") ? "" : (stryCov_9fa48("396"), "string")))))) throw new LlmError(stryMutAct_9fa48("397") ? "" : (stryCov_9fa48("397"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("398") ? `` : (stryCov_9fa48("398"), `tool_use block ${index} has no id or name`));
            return stryMutAct_9fa48("399") ? [] : (stryCov_9fa48("399"), [stryMutAct_9fa48("400") ? {} : (stryCov_9fa48("400"), {
              type: stryMutAct_9fa48("401") ? "" : (stryCov_9fa48("401"), "tool-call-delta"),
              index,
              callId: block.id,
              name: block.name,
              argumentsDelta: stryMutAct_9fa48("402") ? "Stryker was here!" : (stryCov_9fa48("402"), "")
            })]);
          }
        default:
          if (stryMutAct_9fa48("403")) {} else {
            stryCov_9fa48("403");
            throw new LlmError(stryMutAct_9fa48("404") ? "" : (stryCov_9fa48("404"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("405") ? `` : (stryCov_9fa48("405"), `content block ${index} has a type this adapter does not handle: ${String(block.type)}`));
          }
      }
    }
  }
  #delta(index: number, delta: NonNullable<WireEvent["delta"]>): StreamChunk[] {
    if (stryMutAct_9fa48("406")) {
      {}
    } else {
      stryCov_9fa48("406");
      switch (delta.type) {
        case stryMutAct_9fa48("408") ? "" : (stryCov_9fa48("408"), "text_delta"):
          if (stryMutAct_9fa48("407")) {} else {
            stryCov_9fa48("407");
            return stryMutAct_9fa48("409") ? [] : (stryCov_9fa48("409"), [stryMutAct_9fa48("410") ? {} : (stryCov_9fa48("410"), {
              type: stryMutAct_9fa48("411") ? "" : (stryCov_9fa48("411"), "text-delta"),
              text: stryMutAct_9fa48("412") ? delta.text && "" : (stryCov_9fa48("412"), delta.text ?? (stryMutAct_9fa48("413") ? "Stryker was here!" : (stryCov_9fa48("413"), ""))),
              block: index
            })]);
          }
        case stryMutAct_9fa48("415") ? "" : (stryCov_9fa48("415"), "thinking_delta"):
          if (stryMutAct_9fa48("414")) {} else {
            stryCov_9fa48("414");
            return stryMutAct_9fa48("416") ? [] : (stryCov_9fa48("416"), [stryMutAct_9fa48("417") ? {} : (stryCov_9fa48("417"), {
              type: stryMutAct_9fa48("418") ? "" : (stryCov_9fa48("418"), "reasoning-delta"),
              text: stryMutAct_9fa48("419") ? delta.thinking && "" : (stryCov_9fa48("419"), delta.thinking ?? (stryMutAct_9fa48("420") ? "Stryker was here!" : (stryCov_9fa48("420"), ""))),
              block: index
            })]);
          }
        case stryMutAct_9fa48("422") ? "" : (stryCov_9fa48("422"), "signature_delta"):
          if (stryMutAct_9fa48("421")) {} else {
            stryCov_9fa48("421");
            if (stryMutAct_9fa48("425") ? false : stryMutAct_9fa48("424") ? true : stryMutAct_9fa48("423") ? this.#signatures.has(index) : (stryCov_9fa48("423", "424", "425"), !this.#signatures.has(index))) throw new LlmError(stryMutAct_9fa48("426") ? "" : (stryCov_9fa48("426"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("427") ? `` : (stryCov_9fa48("427"), `a signature arrived for block ${index}, which is not a thinking block`));
            this.#signatures.set(index, stryMutAct_9fa48("428") ? this.#signatures.get(index)! - (delta.signature ?? "") : (stryCov_9fa48("428"), this.#signatures.get(index)! + (stryMutAct_9fa48("429") ? delta.signature && "" : (stryCov_9fa48("429"), delta.signature ?? (stryMutAct_9fa48("430") ? "Stryker was here!" : (stryCov_9fa48("430"), ""))))));
            return stryMutAct_9fa48("431") ? ["Stryker was here"] : (stryCov_9fa48("431"), []);
          }
        case stryMutAct_9fa48("433") ? "" : (stryCov_9fa48("433"), "input_json_delta"):
          if (stryMutAct_9fa48("432")) {} else {
            stryCov_9fa48("432");
            return stryMutAct_9fa48("434") ? [] : (stryCov_9fa48("434"), [stryMutAct_9fa48("435") ? {} : (stryCov_9fa48("435"), {
              type: stryMutAct_9fa48("436") ? "" : (stryCov_9fa48("436"), "tool-call-delta"),
              index,
              argumentsDelta: stryMutAct_9fa48("437") ? delta.partial_json && "" : (stryCov_9fa48("437"), delta.partial_json ?? (stryMutAct_9fa48("438") ? "Stryker was here!" : (stryCov_9fa48("438"), "")))
            })]);
          }
        default:
          if (stryMutAct_9fa48("439")) {} else {
            stryCov_9fa48("439");
            throw new LlmError(stryMutAct_9fa48("440") ? "" : (stryCov_9fa48("440"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("441") ? `` : (stryCov_9fa48("441"), `block ${index} sent a delta this adapter does not handle: ${String(delta.type)}`));
          }
      }
    }
  }
}

/**
 * Parses a Messages API SSE body into neutral chunks: text, thinking with its signature, redacted
 * thinking, tool calls (keyed by content-block index), usage and the stop reason. A body that ends
 * before `message_stop` is `LLM_STREAM_INTERRUPTED`; no bytes for `idleTimeoutMs` is `LLM_TIMEOUT`.
 */
export async function* parseMessagesStream(body: ReadableStream<Uint8Array>, idleTimeoutMs: number, options: {
  readonly comparing?: boolean;
} = {}): AsyncGenerator<StreamChunk> {
  if (stryMutAct_9fa48("442")) {
    {}
  } else {
    stryCov_9fa48("442");
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const mapper = new EventMapper(stryMutAct_9fa48("443") ? options.comparing && false : (stryCov_9fa48("443"), options.comparing ?? (stryMutAct_9fa48("444") ? true : (stryCov_9fa48("444"), false))));
    const pending: StreamChunk[] = stryMutAct_9fa48("445") ? ["Stryker was here"] : (stryCov_9fa48("445"), []);
    let parseError: unknown;
    const parser = createParser(stryMutAct_9fa48("446") ? {} : (stryCov_9fa48("446"), {
      onEvent(event: EventSourceMessage) {
        if (stryMutAct_9fa48("447")) {
          {}
        } else {
          stryCov_9fa48("447");
          if (stryMutAct_9fa48("450") ? parseError === undefined : stryMutAct_9fa48("449") ? false : stryMutAct_9fa48("448") ? true : (stryCov_9fa48("448", "449", "450"), parseError !== undefined)) return;
          try {
            if (stryMutAct_9fa48("451")) {
              {}
            } else {
              stryCov_9fa48("451");
              let parsed: WireEvent;
              try {
                if (stryMutAct_9fa48("452")) {
                  {}
                } else {
                  stryCov_9fa48("452");
                  parsed = JSON.parse(event.data) as WireEvent;
                }
              } catch (cause) {
                if (stryMutAct_9fa48("453")) {
                  {}
                } else {
                  stryCov_9fa48("453");
                  throw new LlmError(stryMutAct_9fa48("454") ? "" : (stryCov_9fa48("454"), "LLM_MALFORMED_STREAM"), stryMutAct_9fa48("455") ? `` : (stryCov_9fa48("455"), `unreadable stream event: ${truncateText(event.data, 80)}`), stryMutAct_9fa48("456") ? {} : (stryCov_9fa48("456"), {
                    cause
                  }));
                }
              }
              for (const chunk of mapper.map(parsed)) pending.push(chunk);
            }
          } catch (error) {
            if (stryMutAct_9fa48("457")) {
              {}
            } else {
              stryCov_9fa48("457");
              parseError = error;
            }
          }
        }
      }
    }));
    try {
      if (stryMutAct_9fa48("458")) {
        {}
      } else {
        stryCov_9fa48("458");
        while (stryMutAct_9fa48("460") ? false : stryMutAct_9fa48("459") ? mapper.finished : (stryCov_9fa48("459", "460"), !mapper.finished)) {
          if (stryMutAct_9fa48("461")) {
            {}
          } else {
            stryCov_9fa48("461");
            const read = await readWithIdleTimeout(reader, idleTimeoutMs);
            if (stryMutAct_9fa48("463") ? false : stryMutAct_9fa48("462") ? true : (stryCov_9fa48("462", "463"), read.done)) break;
            parser.feed(decoder.decode(read.value, stryMutAct_9fa48("464") ? {} : (stryCov_9fa48("464"), {
              stream: stryMutAct_9fa48("465") ? false : (stryCov_9fa48("465"), true)
            })));
            if (stryMutAct_9fa48("468") ? parseError === undefined : stryMutAct_9fa48("467") ? false : stryMutAct_9fa48("466") ? true : (stryCov_9fa48("466", "467", "468"), parseError !== undefined)) throw parseError;
            yield* pending.splice(0);
          }
        }
      }
    } finally {
      if (stryMutAct_9fa48("469")) {
        {}
      } else {
        stryCov_9fa48("469");
        await reader.cancel().catch(() => undefined);
      }
    }
    if (stryMutAct_9fa48("472") ? false : stryMutAct_9fa48("471") ? true : stryMutAct_9fa48("470") ? mapper.finished : (stryCov_9fa48("470", "471", "472"), !mapper.finished)) throw new LlmError(stryMutAct_9fa48("473") ? "" : (stryCov_9fa48("473"), "LLM_STREAM_INTERRUPTED"), stryMutAct_9fa48("474") ? "" : (stryCov_9fa48("474"), "the stream ended before message_stop"));
  }
}