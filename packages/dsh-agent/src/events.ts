import { defineEvent } from "dsh-log";
import { cacheDiagnosisSchema, finishReasonSchema, messageSourceSchema, tokenUsageSchema, userContentSchema } from "dsh-llm/schemas";
import { z } from "zod";

const turnNumber = z.number().int().nonnegative();
const stepNumber = z.number().int().nonnegative();

/** A failure as logged: a stable code and a message (never credentials). */
export const loggedErrorSchema = z.strictObject({
  code: z.string().min(1),
  message: z.string(),
  status: z.number().int().exactOptional(),
});

/** Why a turn ended. */
export const turnEndReasonSchema = z.enum(["completed", "aborted", "blocked", "error", "max-tokens", "max-steps", "interrupted"]);
export type TurnEndReason = z.output<typeof turnEndReasonSchema>;

/** Why a step ended. */
export const stepEndReasonSchema = z.enum(["completed", "aborted", "error", "max-tokens", "interrupted"]);
export type StepEndReason = z.output<typeof stepEndReasonSchema>;

/** A turn begins: one user input run until the model stops calling tools. */
export const turnStartEvent = defineEvent("turn/start", z.strictObject({ turn: turnNumber }));

/** A value still queued for the model when a turn ended: it enters the next step that claims the inbox. */
export const pendingInputSchema = z.strictObject({ content: z.array(userContentSchema).min(1), source: messageSourceSchema });

/**
 * A turn ends, with its reason (and the error, when it failed). `pending` lists, with their sources,
 * the values still queued for the model (a tool's added context, an injection the turn did not take):
 * they enter the next turn, also when another process resumes the session.
 */
export const turnEndEvent = defineEvent(
  "turn/end",
  z.strictObject({
    turn: turnNumber,
    reason: turnEndReasonSchema,
    error: loggedErrorSchema.exactOptional(),
    pending: z.array(pendingInputSchema).min(1).exactOptional(),
  }),
);

/** A step opens; the events up to its `request/dispatch` are exactly what its request contains. */
export const stepStartEvent = defineEvent(
  "step/start",
  z.strictObject({ turn: turnNumber, step: stepNumber, startsRequestSeries: z.literal(true).exactOptional() }),
);

/** `agent/pre-step` refused to open step `step`, with the listener's reason when it gave one; the turn then ends `blocked`. */
export const stepRejectEvent = defineEvent(
  "step/reject",
  z.strictObject({ turn: turnNumber, step: stepNumber, reason: z.string().min(1).exactOptional() }),
);

/** The reconstruction boundary: the step's request is the fold of the log up to this event. */
export const requestDispatchEvent = defineEvent("request/dispatch", z.strictObject({ turn: turnNumber, step: stepNumber }));

/** A retryable failure of an attempt; the same frozen request is sent again after `delayMs`. */
export const requestRetryEvent = defineEvent(
  "request/retry",
  z.strictObject({
    turn: turnNumber,
    step: stepNumber,
    attempt: z.number().int().positive(),
    delayMs: z.number().int().nonnegative(),
    error: loggedErrorSchema,
  }),
);

/**
 * A step ends, with the provider's finish reason and usage when the request completed. `unsent`
 * says that no byte of the step's request left the process (it failed or was aborted before any
 * attempt sent it): a logged dispatch that was never sent.
 */
export const stepEndEvent = defineEvent(
  "step/end",
  z.strictObject({
    turn: turnNumber,
    step: stepNumber,
    reason: stepEndReasonSchema,
    finishReason: finishReasonSchema.exactOptional(),
    usage: tokenUsageSchema.exactOptional(),
    /** The provider's id of the answer: what the next request names when it asks for a cache diagnosis. */
    responseId: z.string().min(1).exactOptional(),
    /** The provider's verdict on its cache for this request, when the request asked for one. */
    cacheDiagnosis: cacheDiagnosisSchema.exactOptional(),
    error: loggedErrorSchema.exactOptional(),
    unsent: z.literal(true).exactOptional(),
  }),
);

const surfaceRange = z.strictObject({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() });

/** Why a compaction ran. */
export const compactionReasonSchema = z.enum(["threshold", "overflow", "manual", "cache-expired"]);
export type CompactionReason = z.output<typeof compactionReasonSchema>;

/** A compaction begins: which surface nodes (seqs) it will summarize, and the token pressure that triggered it. */
export const compactionStartEvent = defineEvent(
  "compaction/start",
  z.strictObject({
    reason: compactionReasonSchema,
    range: surfaceRange,
    measuredTokens: z.number().int().nonnegative().exactOptional(),
  }),
);

/** The one-shot summary call's envelope scalars and result; its input is deterministic code over `range`. */
export const compactionSummaryEvent = defineEvent(
  "compaction/summary",
  z.strictObject({
    provider: z.string().min(1),
    model: z.string().min(1),
    maxTokens: z.number().int().positive(),
    range: surfaceRange,
    summary: z.string().min(1),
    usage: tokenUsageSchema.exactOptional(),
  }),
);

/** The plans a compaction forecast prices: compact now, when the cache would expire anyway, or not at all. */
export const compactionPlanSchema = z.enum(["now", "at-expiry", "never"]);
export type CompactionPlan = z.output<typeof compactionPlanSchema>;

const usd = z.number().nonnegative();

/**
 * The token pressure reached the threshold and the compaction policy priced its plans over the next
 * requests at the session's pace: what each would cost (the summary call apart), and the plan it
 * chose. `idleMs` is the cache's lifetime: `at-expiry` compacts before the first step after a pause
 * that long. The decision is logged before it is acted on, so a replay decides the same way.
 */
export const compactionForecastEvent = defineEvent(
  "compaction/forecast",
  z.strictObject({
    measuredTokens: z.number().int().nonnegative(),
    range: surfaceRange,
    plans: z
      .array(
        z.strictObject({
          plan: compactionPlanSchema,
          summaryUsd: usd,
          requestsUsd: z.array(usd).min(1),
          idleMs: z.number().int().positive().exactOptional(),
        }),
      )
      .min(1),
    choice: compactionPlanSchema,
  }),
);

/** A compaction ends: `completed` (the surface replace is logged just before) or `failed` (surface untouched). */
export const compactionEndEvent = defineEvent(
  "compaction/end",
  z.strictObject({
    outcome: z.enum(["completed", "failed"]),
    generation: z.number().int().positive().exactOptional(),
    error: loggedErrorSchema.exactOptional(),
  }),
);

/**
 * A proposal to recover from an unreadable attachment: the surface nodes (seqs) that reference it
 * could be replaced by placeholders. Logging it changes nothing; accepting it is a logged replace.
 */
export const attachmentQuarantineEvent = defineEvent(
  "attachment/quarantine",
  z.strictObject({
    digest: z.string().min(1),
    code: z.string().min(1),
    message: z.string(),
    nodes: z.array(z.number().int().nonnegative()).min(1),
  }),
);

/**
 * A decision on one tool call before it ran: allowed or denied, by whom (the hook's own name for the
 * person or policy), and why. Not model-visible: a denied call's `tool/result` says so to the model.
 */
export const toolApprovalEvent = defineEvent(
  "tool/approval",
  z.strictObject({
    turn: turnNumber,
    step: stepNumber,
    callId: z.string().min(1),
    toolName: z.string().min(1),
    allowed: z.boolean(),
    by: z.string().min(1),
    reason: z.string().exactOptional(),
  }),
);

/**
 * A call of a tool that is not safe to run twice is about to run. Committed before the call starts,
 * so a process that finishes the step after a crash knows the call may have run, and never runs it
 * again blindly. Not model-visible.
 */
export const toolIntentEvent = defineEvent(
  "tool/intent",
  z.strictObject({ turn: turnNumber, step: stepNumber, callId: z.string().min(1), toolName: z.string().min(1) }),
);

/** The agent's event definitions, in the order they are registered. */
export const agentEventDefinitions = [
  turnStartEvent,
  turnEndEvent,
  stepStartEvent,
  stepRejectEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  compactionEndEvent,
  compactionForecastEvent,
  attachmentQuarantineEvent,
  toolApprovalEvent,
  toolIntentEvent,
];
