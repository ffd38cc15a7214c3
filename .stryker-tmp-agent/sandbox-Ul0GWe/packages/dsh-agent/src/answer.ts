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
import type { GenerateResult, TokenUsage, ToolCallBlock } from "dsh-llm";
import { assistantMessageEvent, toolResultEvent } from "dsh-surface";
import { ToolError } from "./errors.js";
import { stepEndEvent, type StepEndReason } from "./events.js";
import type { Loop } from "./loop.js";
import { approveCalls } from "./approval.js";
import { tell, type ToolEvent, type ToolProgress } from "./listeners.js";
import { startCalls } from "./tool-runs.js";
import { toolErrorOutcome, type AgentTool, type ToolContext, type ToolOutcome } from "./tools.js";

/** How a step ended and whether the turn goes on. */
export interface StepOutcome {
  readonly reason: StepEndReason;
  readonly continueTurn: boolean;
  readonly text: string;
  /** What the provider reported for the step's answer, if it did. */
  readonly usage?: TokenUsage | undefined;
}
async function invoke(call: ToolCallBlock, tools: readonly AgentTool[], context: ToolContext): Promise<ToolOutcome> {
  if (stryMutAct_9fa48("0")) {
    {}
  } else {
    stryCov_9fa48("0");
    if (stryMutAct_9fa48("2") ? false : stryMutAct_9fa48("1") ? true : (stryCov_9fa48("1", "2"), context.signal.aborted)) return toolErrorOutcome(new ToolError(stryMutAct_9fa48("3") ? "" : (stryCov_9fa48("3"), "TOOL_ABORTED"), stryMutAct_9fa48("4") ? "" : (stryCov_9fa48("4"), "not run: the turn was aborted")));
    const tool = tools.find(stryMutAct_9fa48("5") ? () => undefined : (stryCov_9fa48("5"), candidate => stryMutAct_9fa48("8") ? candidate.schema.name !== call.name : stryMutAct_9fa48("7") ? false : stryMutAct_9fa48("6") ? true : (stryCov_9fa48("6", "7", "8"), candidate.schema.name === call.name)));
    if (stryMutAct_9fa48("11") ? tool !== undefined : stryMutAct_9fa48("10") ? false : stryMutAct_9fa48("9") ? true : (stryCov_9fa48("9", "10", "11"), tool === undefined)) return toolErrorOutcome(new ToolError(stryMutAct_9fa48("12") ? "" : (stryCov_9fa48("12"), "TOOL_UNKNOWN"), stryMutAct_9fa48("13") ? `` : (stryCov_9fa48("13"), `no tool named ${call.name} is offered`)));
    return tool.invoke(call.arguments, context);
  }
}

/**
 * Logs the answer, runs its tool calls (at most `toolConcurrency` at once; a tool marked `runsAlone`
 * alone), logs their results in the model's order whatever order they finish in, so the rebuilt
 * request and the cache prefix never depend on timing, queues their `additionalContexts` in the
 * inbox, and closes the step with usage.
 */
export async function finishStep(loop: Loop, at: {
  readonly turn: number;
  readonly step: number;
  readonly signal: AbortSignal;
  readonly onToolEvent?: ((event: ToolEvent) => void) | undefined;
}, result: GenerateResult, tools: readonly AgentTool[]): Promise<StepOutcome> {
  if (stryMutAct_9fa48("14")) {
    {}
  } else {
    stryCov_9fa48("14");
    const {
      turn,
      step,
      signal
    } = at;
    await loop.log.append(assistantMessageEvent.input(stryMutAct_9fa48("15") ? {} : (stryCov_9fa48("15"), {
      content: result.content,
      source: stryMutAct_9fa48("16") ? "" : (stryCov_9fa48("16"), "model")
    })));
    const calls = stryMutAct_9fa48("17") ? result.content : (stryCov_9fa48("17"), result.content.filter(stryMutAct_9fa48("18") ? () => undefined : (stryCov_9fa48("18"), (block): block is ToolCallBlock => stryMutAct_9fa48("21") ? block.type !== "tool-call" : stryMutAct_9fa48("20") ? false : stryMutAct_9fa48("19") ? true : (stryCov_9fa48("19", "20", "21"), block.type === (stryMutAct_9fa48("22") ? "" : (stryCov_9fa48("22"), "tool-call"))))));
    const truncated = stryMutAct_9fa48("25") ? result.finishReason !== "length" : stryMutAct_9fa48("24") ? false : stryMutAct_9fa48("23") ? true : (stryCov_9fa48("23", "24", "25"), result.finishReason === (stryMutAct_9fa48("26") ? "" : (stryCov_9fa48("26"), "length")));
    const approve = loop.settings.approve;
    const approvals = (stryMutAct_9fa48("29") ? truncated && approve === undefined : stryMutAct_9fa48("28") ? false : stryMutAct_9fa48("27") ? true : (stryCov_9fa48("27", "28", "29"), truncated || (stryMutAct_9fa48("31") ? approve !== undefined : stryMutAct_9fa48("30") ? false : (stryCov_9fa48("30", "31"), approve === undefined)))) ? undefined : await approveCalls(loop, approve, calls, at);
    const scheduled = calls.map(stryMutAct_9fa48("32") ? () => undefined : (stryCov_9fa48("32"), call => stryMutAct_9fa48("33") ? {} : (stryCov_9fa48("33"), {
      call,
      alone: stryMutAct_9fa48("36") ? tools.find(tool => tool.schema.name === call.name)?.runsAlone !== true : stryMutAct_9fa48("35") ? false : stryMutAct_9fa48("34") ? true : (stryCov_9fa48("34", "35", "36"), (stryMutAct_9fa48("37") ? tools.find(tool => tool.schema.name === call.name).runsAlone : (stryCov_9fa48("37"), tools.find(stryMutAct_9fa48("38") ? () => undefined : (stryCov_9fa48("38"), tool => stryMutAct_9fa48("41") ? tool.schema.name !== call.name : stryMutAct_9fa48("40") ? false : stryMutAct_9fa48("39") ? true : (stryCov_9fa48("39", "40", "41"), tool.schema.name === call.name)))?.runsAlone)) === (stryMutAct_9fa48("42") ? false : (stryCov_9fa48("42"), true)))
    })));
    const outcomes = startCalls(scheduled, loop.settings.toolConcurrency, call => {
      if (stryMutAct_9fa48("43")) {
        {}
      } else {
        stryCov_9fa48("43");
        const index = calls.indexOf(call);
        const approval = stryMutAct_9fa48("44") ? approvals[index] : (stryCov_9fa48("44"), approvals?.[index]);
        if (stryMutAct_9fa48("46") ? false : stryMutAct_9fa48("45") ? true : (stryCov_9fa48("45", "46"), truncated)) return Promise.resolve(toolErrorOutcome(new ToolError(stryMutAct_9fa48("47") ? "" : (stryCov_9fa48("47"), "TOOL_NOT_RUN"), stryMutAct_9fa48("48") ? "" : (stryCov_9fa48("48"), "not run: the answer was cut off at the token limit"))));
        if (stryMutAct_9fa48("51") ? approval !== undefined || !approval.allowed : stryMutAct_9fa48("50") ? false : stryMutAct_9fa48("49") ? true : (stryCov_9fa48("49", "50", "51"), (stryMutAct_9fa48("53") ? approval === undefined : stryMutAct_9fa48("52") ? true : (stryCov_9fa48("52", "53"), approval !== undefined)) && (stryMutAct_9fa48("54") ? approval.allowed : (stryCov_9fa48("54"), !approval.allowed)))) {
          if (stryMutAct_9fa48("55")) {
            {}
          } else {
            stryCov_9fa48("55");
            return Promise.resolve(toolErrorOutcome(new ToolError(stryMutAct_9fa48("56") ? "" : (stryCov_9fa48("56"), "TOOL_DENIED"), stryMutAct_9fa48("57") ? `` : (stryCov_9fa48("57"), `not run: denied by ${approval.by}${(stryMutAct_9fa48("60") ? approval.reason !== undefined : stryMutAct_9fa48("59") ? false : stryMutAct_9fa48("58") ? true : (stryCov_9fa48("58", "59", "60"), approval.reason === undefined)) ? stryMutAct_9fa48("61") ? "Stryker was here!" : (stryCov_9fa48("61"), "") : stryMutAct_9fa48("62") ? `` : (stryCov_9fa48("62"), `: ${approval.reason}`)}`))));
          }
        }
        const name = call.name;
        const callId = call.callId;
        tell(at.onToolEvent, stryMutAct_9fa48("63") ? {} : (stryCov_9fa48("63"), {
          type: stryMutAct_9fa48("64") ? "" : (stryCov_9fa48("64"), "start"),
          callId,
          name,
          turn,
          step
        }));
        const reportProgress = stryMutAct_9fa48("65") ? () => undefined : (stryCov_9fa48("65"), (() => {
          const reportProgress = (update: ToolProgress) => tell(at.onToolEvent, stryMutAct_9fa48("66") ? {} : (stryCov_9fa48("66"), {
            type: stryMutAct_9fa48("67") ? "" : (stryCov_9fa48("67"), "progress"),
            callId,
            name,
            ...update
          }));
          return reportProgress;
        })());
        return invoke(call, tools, stryMutAct_9fa48("68") ? {} : (stryCov_9fa48("68"), {
          callId,
          turn,
          step,
          index,
          signal,
          reportProgress
        })).then(outcome => {
          if (stryMutAct_9fa48("69")) {
            {}
          } else {
            stryCov_9fa48("69");
            tell(at.onToolEvent, stryMutAct_9fa48("70") ? {} : (stryCov_9fa48("70"), {
              type: stryMutAct_9fa48("71") ? "" : (stryCov_9fa48("71"), "finish"),
              callId,
              name,
              isError: outcome.isError
            }));
            return outcome;
          }
        });
      }
    });
    for (const [index, call] of calls.entries()) {
      if (stryMutAct_9fa48("72")) {
        {}
      } else {
        stryCov_9fa48("72");
        const outcome = await outcomes[index]!;
        await loop.log.append(toolResultEvent.input(stryMutAct_9fa48("73") ? {} : (stryCov_9fa48("73"), {
          callId: call.callId,
          toolName: call.name,
          content: outcome.content,
          isError: outcome.isError,
          source: stryMutAct_9fa48("74") ? "" : (stryCov_9fa48("74"), "tool")
        })));
        for (const context of outcome.additionalContexts) loop.inbox.push(context, stryMutAct_9fa48("75") ? "" : (stryCov_9fa48("75"), "tool-context"));
      }
    }
    const reason: StepEndReason = signal.aborted ? stryMutAct_9fa48("76") ? "" : (stryCov_9fa48("76"), "aborted") : truncated ? stryMutAct_9fa48("77") ? "" : (stryCov_9fa48("77"), "max-tokens") : stryMutAct_9fa48("78") ? "" : (stryCov_9fa48("78"), "completed");
    const usage = (stryMutAct_9fa48("81") ? result.usage !== undefined : stryMutAct_9fa48("80") ? false : stryMutAct_9fa48("79") ? true : (stryCov_9fa48("79", "80", "81"), result.usage === undefined)) ? {} : stryMutAct_9fa48("82") ? {} : (stryCov_9fa48("82"), {
      usage: result.usage
    });
    const id = (stryMutAct_9fa48("85") ? result.responseId !== undefined : stryMutAct_9fa48("84") ? false : stryMutAct_9fa48("83") ? true : (stryCov_9fa48("83", "84", "85"), result.responseId === undefined)) ? {} : stryMutAct_9fa48("86") ? {} : (stryCov_9fa48("86"), {
      responseId: result.responseId
    });
    const diagnosis = (stryMutAct_9fa48("89") ? result.cacheDiagnosis !== undefined : stryMutAct_9fa48("88") ? false : stryMutAct_9fa48("87") ? true : (stryCov_9fa48("87", "88", "89"), result.cacheDiagnosis === undefined)) ? {} : stryMutAct_9fa48("90") ? {} : (stryCov_9fa48("90"), {
      cacheDiagnosis: result.cacheDiagnosis
    });
    await loop.log.append(stepEndEvent.input(stryMutAct_9fa48("91") ? {} : (stryCov_9fa48("91"), {
      turn,
      step,
      reason,
      finishReason: result.finishReason,
      ...usage,
      ...id,
      ...diagnosis
    })));
    const text = result.content.flatMap(stryMutAct_9fa48("92") ? () => undefined : (stryCov_9fa48("92"), block => (stryMutAct_9fa48("95") ? block.type !== "text" : stryMutAct_9fa48("94") ? false : stryMutAct_9fa48("93") ? true : (stryCov_9fa48("93", "94", "95"), block.type === (stryMutAct_9fa48("96") ? "" : (stryCov_9fa48("96"), "text")))) ? stryMutAct_9fa48("97") ? [] : (stryCov_9fa48("97"), [block.text]) : stryMutAct_9fa48("98") ? ["Stryker was here"] : (stryCov_9fa48("98"), []))).join(stryMutAct_9fa48("99") ? "Stryker was here!" : (stryCov_9fa48("99"), ""));
    return stryMutAct_9fa48("100") ? {} : (stryCov_9fa48("100"), {
      reason,
      continueTurn: stryMutAct_9fa48("104") ? calls.length <= 0 : stryMutAct_9fa48("103") ? calls.length >= 0 : stryMutAct_9fa48("102") ? false : stryMutAct_9fa48("101") ? true : (stryCov_9fa48("101", "102", "103", "104"), calls.length > 0),
      text,
      usage: result.usage
    });
  }
}