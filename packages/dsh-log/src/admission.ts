import { describeIssues } from "dsh-base";
import { deepFreeze, findNonJson } from "dsh-llm";
import { LogError } from "./errors.js";
import { EVENT_TYPE_PATTERN, type LogEvent } from "./event.js";
import type { EventRegistry } from "./registry.js";

/** A candidate event with its envelope filled in, before admission. */
export interface Candidate {
  readonly seq: number;
  readonly type: unknown;
  readonly time: unknown;
  readonly data: unknown;
}

/**
 * Checks one candidate against the envelope rules, the registry's retirements, JSON representability and the
 * schema of its type, and returns the event deep-frozen over a private copy of its data. The data is
 * stored exactly as given: schemas may reject, never repair.
 */
export function admitEnvelope(registry: EventRegistry, candidate: Candidate, expectedSeq: number, line?: number): LogEvent {
  const at = line === undefined ? {} : { line };
  const { seq, type, time, data } = candidate;
  if (seq !== expectedSeq) {
    throw new LogError("LOG_INVALID_EVENT", `seq must be ${expectedSeq}, the next in the log, not ${JSON.stringify(seq) ?? String(seq)}`, at);
  }
  if (typeof type !== "string" || !EVENT_TYPE_PATTERN.test(type)) {
    throw new LogError("LOG_INVALID_EVENT", `invalid event type ${JSON.stringify(type)}`, at);
  }
  if (typeof time !== "number" || !Number.isSafeInteger(time) || time < 0) {
    throw new LogError("LOG_INVALID_EVENT", `${type}: time must be a non-negative integer of epoch ms`, at);
  }
  const retired = registry.retirement(type, data);
  if (retired !== undefined) throw new LogError("LOG_LEGACY_EVENT", `${type}: ${retired}`, at);
  const nonJson = findNonJson(data);
  if (nonJson !== undefined) {
    throw new LogError("LOG_INVALID_EVENT", `${type}: data is not exact JSON (${nonJson})`, at);
  }
  const definition = registry.definition(type);
  if (definition === undefined) {
    if (!registry.isIgnorable(type)) {
      throw new LogError("LOG_UNKNOWN_TYPE", `unknown event type ${type} (not registered and not ignorable)`, at);
    }
  } else {
    const parsed = definition.schema.safeParse(data);
    if (!parsed.success) {
      throw new LogError("LOG_INVALID_EVENT", `${type}: ${describeIssues(parsed.error.issues)}`, at);
    }
  }
  const copy: unknown = data === undefined ? null : JSON.parse(JSON.stringify(data));
  return deepFreeze({ seq, type, time, data: copy }) as LogEvent;
}

/** Folds `events` through every admission rule starting from `states`; throws on the first refusal. */
export function admitRules(
  registry: EventRegistry,
  states: readonly unknown[],
  events: readonly LogEvent[],
  lineOf?: (event: LogEvent) => number,
): unknown[] {
  const next = [...states];
  for (const event of events) {
    registry.rules.forEach((rule, index) => {
      try {
        next[index] = rule.admit(next[index], event);
      } catch (cause) {
        const line = lineOf?.(event);
        if (cause instanceof LogError && line !== undefined && cause.line === undefined) {
          throw new LogError(cause.code, cause.message, { cause, line });
        }
        throw cause;
      }
    });
  }
  return next;
}
