import type { EpochHeader } from "dsh-header";
import type { AssistantContent, CacheDiagnosis, DeepReadonly, FinishReason, FrozenGenerateOptions, TokenUsage, UserContent } from "dsh-llm";
import { finishReasonName, providerName, requestAttributes, usageAttributes } from "./attributes.js";
import { inputMessages, outputMessages, systemInstructions, toolCallContent, toolDefinitions } from "./content.js";
import type { SpanAttributeValue, SpanEventRecord, SpanLinkRecord, SpanRecord } from "./span.js";

/** A logged change that explains a cache break: what changed, and the seq it was logged at. */
export interface BreakCause {
  readonly cause: string;
  readonly seq: number;
}

/** Where a span sits: its session, trace and parent, and the seq of the event that opened it. */
export interface SpanPlace {
  readonly sessionId: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly seq: number;
  readonly content: boolean;
}

/** A logged failure as the conventions' `error.type` and the span status. */
function failed(code: string | undefined): Pick<SpanRecord, "status"> & { readonly errorType: Record<string, string> } {
  return code === undefined ? { status: { code: "unset" }, errorType: {} } : { status: { code: "error", message: code }, errorType: { "error.type": code } };
}

function base(place: SpanPlace): Record<string, SpanAttributeValue> {
  return { "gen_ai.conversation.id": place.sessionId, "dsh.session.id": place.sessionId, "dsh.seq": place.seq, "dsh.content.ref": `dsh:${place.sessionId}/${place.seq}` };
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

/** What a request step logged, from its dispatch to its `step/end`. */
export interface ChatStep {
  readonly turn: number;
  readonly step: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly header: EpochHeader;
  readonly request: FrozenGenerateOptions;
  readonly causes: readonly BreakCause[];
  readonly retries: readonly SpanEventRecord[];
  readonly answer: readonly DeepReadonly<AssistantContent>[] | undefined;
  readonly end: {
    readonly reason: string;
    readonly finishReason?: FinishReason;
    readonly usage?: TokenUsage;
    readonly responseId?: string;
    readonly cacheDiagnosis?: CacheDiagnosis;
    readonly error?: { readonly code: string };
    readonly unsent?: true;
  };
}

function verdictOf(diagnosis: CacheDiagnosis): string {
  return diagnosis.reason === undefined ? diagnosis.verdict : `${diagnosis.verdict}: ${diagnosis.reason}`;
}

/** The `chat {model}` client span of one request. */
export function chatSpan(place: SpanPlace, step: ChatStep): SpanRecord {
  const { end, header } = step;
  const code = end.error?.code ?? (end.reason === "completed" || end.reason === "max-tokens" ? undefined : end.reason);
  const { status, errorType } = failed(code);
  const finish = end.finishReason === undefined ? undefined : finishReasonName(end.finishReason);
  const messages = step.request.messages;
  const attributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "chat",
    ...requestAttributes(header),
    ...base(place),
    ...(end.responseId === undefined ? {} : { "gen_ai.response.id": end.responseId }),
    ...(finish === undefined ? {} : { "gen_ai.response.finish_reasons": [finish] }),
    ...(end.usage === undefined ? {} : usageAttributes(end.usage)),
    ...errorType,
    "dsh.turn": step.turn,
    "dsh.step": step.step,
    "dsh.step.end_reason": end.reason,
    "dsh.request.sent": end.unsent !== true,
    ...(step.causes.length === 0 ? {} : { "dsh.cache.break_causes": step.causes.map((c) => c.cause), "dsh.cache.break_cause_seqs": step.causes.map((c) => c.seq) }),
    ...(end.cacheDiagnosis === undefined ? {} : { "dsh.cache.provider_verdict": verdictOf(end.cacheDiagnosis) }),
    ...(place.content
      ? {
          "gen_ai.system_instructions": json(systemInstructions(messages)),
          "gen_ai.input.messages": json(inputMessages(messages)),
          ...(step.answer === undefined ? {} : { "gen_ai.output.messages": json(outputMessages(step.answer, finish ?? "error")) }),
          ...(header.tools === undefined || header.tools.length === 0 ? {} : { "gen_ai.tool.definitions": json(toolDefinitions(header.tools)) }),
        }
      : {}),
  };
  return { ...ids(place), name: `chat ${header.config.model}`, kind: "client", startMs: step.startMs, endMs: step.endMs, attributes, links: [], events: step.retries, status };
}

/** What a turn logged, from `turn/start` to `turn/end`. */
export interface TurnRun {
  readonly turn: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly header: EpochHeader | undefined;
  readonly usage: TokenUsage | undefined;
  readonly reason: string;
  readonly errorCode: string | undefined;
  readonly links: readonly SpanLinkRecord[];
  readonly agentName: string | undefined;
}

/** The `invoke_agent` span of one turn, with the turn's usage summed over its requests. */
export function turnSpan(place: SpanPlace, run: TurnRun): SpanRecord {
  const { status, errorType } = failed(run.reason === "completed" || run.reason === "max-steps" || run.reason === "max-tokens" ? undefined : (run.errorCode ?? run.reason));
  const attributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "invoke_agent",
    ...(run.header === undefined ? {} : { "gen_ai.provider.name": requestAttributes(run.header)["gen_ai.provider.name"]!, "gen_ai.request.model": run.header.config.model }),
    ...(run.agentName === undefined ? {} : { "gen_ai.agent.name": run.agentName }),
    ...base(place),
    ...(run.usage === undefined ? {} : usageAttributes(run.usage)),
    ...errorType,
    "dsh.turn": run.turn,
    "dsh.turn.end_reason": run.reason,
  };
  const name = run.agentName === undefined ? "invoke_agent" : `invoke_agent ${run.agentName}`;
  return { ...ids(place), name, kind: "internal", startMs: run.startMs, endMs: run.endMs, attributes, links: run.links, events: [], status };
}

/** What one tool call logged: the call in the answer, any approval, and its result. */
export interface ToolRun {
  readonly turn: number | undefined;
  readonly callId: string;
  readonly toolName: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly argumentsText: string | undefined;
  readonly content: readonly DeepReadonly<UserContent>[];
  readonly isError: boolean;
  readonly approval: { readonly allowed: boolean; readonly by: string } | undefined;
}

/** The error code a dsh tool error result starts with (`Error [TOOL_FAILED]: ...`), else a generic one. */
function toolErrorCode(content: readonly DeepReadonly<UserContent>[]): string {
  const first = content[0];
  const match = first?.type === "text" ? /^Error \[([A-Z][A-Z0-9_]*)\]/.exec(first.text) : null;
  return match?.[1] ?? "tool_error";
}

/** The `execute_tool {name}` span of one tool call. */
export function toolSpan(place: SpanPlace, run: ToolRun): SpanRecord {
  const { status, errorType } = failed(run.isError ? toolErrorCode(run.content) : undefined);
  const content = place.content ? toolCallContent(run.argumentsText, run.content) : undefined;
  const attributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": run.toolName,
    "gen_ai.tool.call.id": run.callId,
    "gen_ai.tool.type": "function",
    ...base(place),
    ...errorType,
    ...(run.turn === undefined ? {} : { "dsh.turn": run.turn }),
    ...(run.approval === undefined ? {} : { "dsh.tool.approved": run.approval.allowed, "dsh.tool.approved_by": run.approval.by }),
    ...(content === undefined
      ? {}
      : { ...(content.arguments === undefined ? {} : { "gen_ai.tool.call.arguments": json(content.arguments) }), ...(run.isError ? {} : { "gen_ai.tool.call.result": content.result }) }),
  };
  return { ...ids(place), name: `execute_tool ${run.toolName}`, kind: "internal", startMs: run.startMs, endMs: run.endMs, attributes, links: [], events: [], status };
}

function ids(place: SpanPlace): Pick<SpanRecord, "traceId" | "spanId" | "parentSpanId"> {
  return { traceId: place.traceId, spanId: place.spanId, parentSpanId: place.parentSpanId };
}

/** What a compaction logged: its start, the summary call's settings and text when it got one, and how it ended. */
export interface CompactionRun {
  readonly startMs: number;
  readonly endMs: number;
  readonly reason: string;
  readonly range: { readonly start: number; readonly end: number };
  readonly summary: { readonly provider: string; readonly model: string; readonly maxTokens: number; readonly text: string } | undefined;
  readonly errorCode: string | undefined;
}

/** The `chat {model}` client span of a compaction's summary call (`chat` when it failed before naming a model). */
export function compactionSpan(place: SpanPlace, run: CompactionRun): SpanRecord {
  const { status, errorType } = failed(run.errorCode);
  const { summary } = run;
  const attributes: Record<string, SpanAttributeValue> = {
    "gen_ai.operation.name": "chat",
    ...(summary === undefined ? {} : { "gen_ai.provider.name": providerName(summary.provider), "gen_ai.request.model": summary.model, "gen_ai.request.max_tokens": summary.maxTokens }),
    ...base(place),
    ...errorType,
    "dsh.operation": "compaction",
    "dsh.compaction.reason": run.reason,
    "dsh.compaction.range": [run.range.start, run.range.end],
    ...(place.content && summary !== undefined ? { "gen_ai.output.messages": json(outputMessages([{ type: "text", text: summary.text }], "stop")) } : {}),
  };
  const name = summary === undefined ? "chat" : `chat ${summary.model}`;
  return { ...ids(place), name, kind: "client", startMs: run.startMs, endMs: run.endMs, attributes, links: [], events: [], status };
}
