import { describeIssues } from "dsh-base";
import { findNonJson, frozenJsonCopy } from "dsh-llm";
import { LogError, type LogErrorCode } from "./errors.js";
import type { LogEvent } from "./event.js";
import type { EventRegistry, TypeEntry } from "./registry.js";

function refuse(code: LogErrorCode, message: string): never {
  throw new LogError(code, message);
}

/** A candidate event with its envelope filled in, before admission. */
export interface Candidate {
  readonly seq: number;
  readonly type: unknown;
  readonly time: unknown;
  readonly data: unknown;
}

/**
 * Checks one candidate whose `type` is a string (described by `entry`) against the envelope rules,
 * the registry's retirements, JSON representability and the schema of its type, and returns the event
 * deep-frozen over a private copy of its data; an event the JSONL reader `parsed` (already exact,
 * frozen and private) is returned as is. The data is stored exactly as given: schemas may reject,
 * never repair.
 */
function admitEnvelope(entry: TypeEntry, candidate: Candidate, type: string, expectedSeq: number, parsed: boolean): LogEvent {
  // Each envelope field is read once: a getter cannot show the checks one value and the log another.
  const { seq, time, data } = candidate;
  if (seq !== expectedSeq || Object.is(seq, -0)) refuse("LOG_INVALID_EVENT", `seq must be ${expectedSeq}, the next in the log, not ${Object.is(seq, -0) ? "-0" : (JSON.stringify(seq) ?? String(seq))}`);
  if (!entry.valid) refuse("LOG_INVALID_EVENT", `invalid event type ${JSON.stringify(type)}`);
  if (typeof time !== "number" || !Number.isSafeInteger(time) || time < 0 || Object.is(time, -0)) refuse("LOG_INVALID_EVENT", `${type}: time must be a non-negative integer of epoch ms`);
  // A parsed event is the reader's private, frozen tree; anything else is copied once, and every check
  // below reads that copy: what is checked is exactly what is stored.
  const stored = parsed ? data : frozenJsonCopy(data);
  if (stored === undefined) refuse("LOG_INVALID_EVENT", `${type}: data is not exact JSON (${findNonJson(data) ?? "unknown"})`);
  for (const retirement of entry.retirements) {
    if (retirement.matches === undefined || retirement.matches(stored)) refuse("LOG_LEGACY_EVENT", `${type}: ${retirement.why}`);
  }
  if (entry.passes !== undefined) {
    // Only a refusal is parsed, for zod's description of what is wrong.
    if (!entry.passes(stored)) refuse("LOG_INVALID_EVENT", `${type}: ${describeIssues(entry.definition?.schema.safeParse(stored).error?.issues ?? [])}`);
  } else if (!entry.ignorable) {
    refuse("LOG_UNKNOWN_TYPE", `unknown event type ${type} (not registered and not ignorable)`);
  }
  return parsed ? (candidate as LogEvent) : (Object.freeze({ seq, type, time, data: stored }) as LogEvent);
}

/** How {@link admitBatch} admits. */
export interface BatchOptions {
  /** The candidates are events the JSONL reader parsed: exact, frozen and private already. */
  readonly parsed?: boolean;
  /** Maps a seq to its line in a file, for error messages. */
  readonly lineOf?: ((seq: number) => number) | undefined;
  /** Where admitted events go (default: a new array). All or nothing only when it is new or thrown away on failure. */
  readonly into?: LogEvent[];
}

/**
 * Admits `candidates` in order, as seqs `firstSeq, firstSeq + 1, …`: each through the envelope checks,
 * then through every rule that looks at its type, folding a copy of `states`. The first refusal
 * throws, naming the candidate's line when `lineOf` is given; returns the events and the new states.
 */
export function admitBatch(
  registry: EventRegistry,
  candidates: Iterable<Candidate>,
  firstSeq: number,
  states: readonly unknown[],
  options: BatchOptions = {},
): { readonly events: LogEvent[]; readonly states: unknown[] } {
  const next = [...states];
  const rules = registry.rules;
  const events = options.into ?? [];
  const parsed = options.parsed === true;
  let seq = firstSeq;
  let lastType: string | undefined;
  let entry: TypeEntry | undefined;
  try {
    for (const candidate of candidates) {
      const type = candidate.type;
      if (typeof type !== "string") refuse("LOG_INVALID_EVENT", `invalid event type ${JSON.stringify(type)}`);
      // Consecutive events often share a type: look its entry up only when it changes.
      if (type !== lastType) {
        entry = registry.entry(type);
        lastType = type;
      }
      const event = admitEnvelope(entry!, candidate, type, seq, parsed);
      const indexes = entry!.rules;
      for (let i = 0; i < indexes.length; i++) {
        const index = indexes[i]!;
        next[index] = rules[index]!.admit(next[index], event);
      }
      events.push(event);
      seq++;
    }
  } catch (cause) {
    const line = options.lineOf?.(seq);
    if (cause instanceof LogError && line !== undefined && cause.line === undefined) throw new LogError(cause.code, cause.message, { cause, line });
    throw cause;
  }
  return { events, states: next };
}

/**
 * Admission of a log read a batch at a time, as one log admits it: each batch takes the next seqs,
 * and the rules' states go from one batch to the next.
 */
export class BatchAdmission {
  readonly #registry: EventRegistry;
  #states: readonly unknown[];
  #seq = 0;

  constructor(registry: EventRegistry) {
    this.#registry = registry;
    this.#states = registry.rules.map((rule) => rule.initial());
  }

  /** The seq the next batch starts at. */
  get seq(): number {
    return this.#seq;
  }

  /** Admits the next batch (see {@link admitBatch}) and returns its events. */
  admit(candidates: Iterable<Candidate>, options: BatchOptions): LogEvent[] {
    const admitted = admitBatch(this.#registry, candidates, this.#seq, this.#states, options);
    this.#states = admitted.states;
    this.#seq += admitted.events.length;
    return admitted.events;
  }
}

/** `items` in arrays of `size` (the last one shorter), as they come. */
export async function* inBatches<T>(items: Iterable<T> | AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}
