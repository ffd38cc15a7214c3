import { assistantContentSchema, messageSourceSchema, modelTextSchema, userContentSchema } from "dsh-llm/schemas";
import {
  deepFreeze,
  type AssistantMessage,
  type Message,
  type SystemMessage,
  type ToolResultMessage,
  type UserMessage,
} from "dsh-llm";
import { defineEvent, type LogEvent } from "dsh-log";
import { z } from "zod";

/**
 * Marks a surface event as a replacement: it shadows the current surface nodes from `start` to
 * `end` (their seqs, inclusive, in surface order) and takes their place, as generation `generation`.
 */
export const surfaceReplaceSchema = z.strictObject({
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  generation: z.number().int().positive(),
});
export type SurfaceReplace = z.output<typeof surfaceReplaceSchema>;

const replaces = surfaceReplaceSchema.exactOptional();

/** The rendered system prompt; always surface node 0. */
export const systemMessageEvent = defineEvent(
  "system/message",
  z.strictObject({ content: modelTextSchema, source: messageSourceSchema, replaces }),
);

/** A user turn or context that entered a step (each with its source). */
export const userMessageEvent = defineEvent(
  "user/message",
  z.strictObject({ content: z.array(userContentSchema).min(1), source: messageSourceSchema, replaces }),
);

/** What the model answered. */
export const assistantMessageEvent = defineEvent(
  "assistant/message",
  z.strictObject({ content: z.array(assistantContentSchema), source: messageSourceSchema, replaces }),
);

/**
 * The child session a tool call ran (a subagent), as it stood when the call returned: its id, its
 * event count and its hash chain's head over them (hex). Never model-visible; verifying the parent's
 * chain covers it, so the child's log cannot change unseen.
 */
export const childSessionSchema = z.strictObject({
  sessionId: z.string().min(1),
  events: z.number().int().nonnegative(),
  head: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ChildSession = z.output<typeof childSessionSchema>;

/** The result of one tool call; `child` names the session a subagent call ran. */
export const toolResultEvent = defineEvent(
  "tool/result",
  z.strictObject({
    callId: z.string().min(1),
    toolName: z.string().min(1),
    content: z.array(userContentSchema),
    isError: z.boolean(),
    source: messageSourceSchema,
    child: childSessionSchema.exactOptional(),
    replaces,
  }),
);

/** The four surface event definitions, for `EventRegistry.define`. */
export const surfaceEventDefinitions = [systemMessageEvent, userMessageEvent, assistantMessageEvent, toolResultEvent];

/** A surface event as stored in the log. */
export type SurfaceEvent =
  | LogEvent<"system/message", z.output<typeof systemMessageEvent.schema>>
  | LogEvent<"user/message", z.output<typeof userMessageEvent.schema>>
  | LogEvent<"assistant/message", z.output<typeof assistantMessageEvent.schema>>
  | LogEvent<"tool/result", z.output<typeof toolResultEvent.schema>>;

/** The four surface event type names. */
export const surfaceEventTypes: ReadonlySet<string> = new Set(surfaceEventDefinitions.map((definition) => definition.type));

/** Whether `event` is one of the four surface event types. */
export function isSurfaceEvent(event: LogEvent): event is SurfaceEvent {
  return surfaceEventTypes.has(event.type);
}

/**
 * Freezes a message built around logged content. Logged data is deep-frozen by the log (on append
 * and on load), so freezing the new object is enough and nothing is walked twice; content that is
 * not frozen (an event built by hand) is deep-frozen here.
 */
function frozenMessage<M extends Message>(message: M, content: unknown): M {
  if (typeof content === "object" && content !== null && !Object.isFrozen(content)) deepFreeze(content);
  return Object.freeze(message);
}

/**
 * The public, pure per-event projection: the model-visible message of one surface event,
 * deep-frozen, with fields in a fixed order. Anyone folding a log prefix uses this same function.
 */
export function deriveEventMessage(event: SurfaceEvent): Message {
  switch (event.type) {
    case "system/message":
      return frozenMessage<SystemMessage>({ role: "system", content: event.data.content, source: event.data.source }, undefined);
    case "user/message":
      return frozenMessage<UserMessage>({ role: "user", content: event.data.content, source: event.data.source }, event.data.content);
    case "assistant/message":
      return frozenMessage<AssistantMessage>({ role: "assistant", content: event.data.content, source: event.data.source }, event.data.content);
    case "tool/result": {
      const { callId, toolName, content, isError, source } = event.data;
      return frozenMessage<ToolResultMessage>({ role: "tool", callId, toolName, content, isError, source }, content);
    }
  }
}
