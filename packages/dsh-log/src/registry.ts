import type { DeepReadonly } from "dsh-llm";
import type { z } from "zod";
import { schemaCheck, type DataCheck } from "./data-check.js";
import { LogError } from "./errors.js";
import { EVENT_TYPE_PATTERN, type EventInput, type LogEvent } from "./event.js";

/** The schema of one event type, registered by the package that owns the type. */
export interface EventDefinition<Type extends string = string, Schema extends z.ZodType = z.ZodType> {
  readonly type: Type;
  readonly schema: Schema;
  /** Whether `event` is of this type; narrows `data` to the schema's output. */
  is(event: LogEvent): event is LogEvent<Type, z.output<Schema>>;
  /** Builds an input of this type with statically checked data. */
  input(data: DeepReadonly<z.input<Schema>>, time?: number): EventInput<Type, DeepReadonly<z.input<Schema>>>;
}

/** Defines an event type; register it with {@link EventRegistry.define}. */
export function defineEvent<const Type extends string, Schema extends z.ZodType>(
  type: Type,
  schema: Schema,
): EventDefinition<Type, Schema> {
  if (!EVENT_TYPE_PATTERN.test(type)) {
    throw new LogError("LOG_INVALID_EVENT", `invalid event type name ${JSON.stringify(type)}`);
  }
  return {
    type,
    schema,
    is: (event): event is LogEvent<Type, z.output<Schema>> => event.type === type,
    input: (data, time) => (time === undefined ? { type, data } : { type, data, time }),
  };
}

/**
 * A stateful admission check folded over the log: `admit` returns the next state or throws a
 * `LogError` (code `LOG_RULE_VIOLATION`) to refuse the event. It must be pure: same state and
 * event, same answer.
 */
export interface AdmissionRule<State = unknown> {
  readonly name: string;
  /** The event types the rule looks at; events of other types pass it untouched. Omitted: every type. */
  readonly types?: ReadonlySet<string>;
  initial(): State;
  admit(state: State, event: LogEvent): State;
}

/** A retired representation: every event of `type`, or only those whose data `matches`. */
export interface Retirement {
  readonly why: string;
  readonly matches: ((data: unknown) => boolean) | undefined;
}

/** What admission needs to know about one event type, worked out once per type. */
export interface TypeEntry {
  /** Whether the name is a valid event type name. */
  readonly valid: boolean;
  readonly definition: EventDefinition | undefined;
  /** The check of the definition's schema (see {@link schemaCheck}), looked up here once rather than per event. */
  readonly passes: DataCheck | undefined;
  /** Unknown, but under an ignorable prefix. */
  readonly ignorable: boolean;
  readonly retirements: readonly Retirement[];
  /** The indexes (in {@link EventRegistry.rules}) of the rules that look at this type. */
  readonly rules: readonly number[];
}

/** Which event types a log admits, how their data is checked, and which rules every event passes. */
export class EventRegistry {
  readonly #definitions = new Map<string, EventDefinition>();
  readonly #ignorablePrefixes: string[] = [];
  readonly #rules: AdmissionRule[] = [];
  readonly #retired = new Map<string, Retirement[]>();
  /** Per type name, what {@link entry} worked out; cleared whenever the registry changes. */
  readonly #entries = new Map<string, TypeEntry>();

  /** Registers event definitions; a type can be defined once. */
  define(...definitions: EventDefinition[]): this {
    for (const definition of definitions) {
      if (this.#definitions.has(definition.type)) {
        throw new LogError("LOG_DUPLICATE_DEFINITION", `event type ${definition.type} is already defined`);
      }
      this.#definitions.set(definition.type, definition);
    }
    this.#entries.clear();
    return this;
  }

  /**
   * Admits events of unknown types starting with `prefix` (e.g. `"ui/"`) as opaque JSON,
   * so logs written by newer tools stay loadable. Every other unknown type is refused.
   */
  ignore(prefix: string): this {
    if (prefix === "") throw new LogError("LOG_INVALID_EVENT", "an ignorable prefix cannot be empty");
    this.#ignorablePrefixes.push(prefix);
    this.#entries.clear();
    return this;
  }

  /**
   * Retires a representation its owner no longer writes: events of `type` (only those whose data
   * `matches`, when given) are refused with `LOG_LEGACY_EVENT` and `why`, on append and on load,
   * before any schema or rule sees them.
   */
  retire(type: string, why: string, matches?: (data: unknown) => boolean): this {
    const list = this.#retired.get(type) ?? [];
    list.push({ why, matches });
    this.#retired.set(type, list);
    this.#entries.clear();
    return this;
  }

  /** Why an event of `type` with `data` is a retired representation, or `undefined` if it is not. */
  retirement(type: string, data: unknown): string | undefined {
    for (const retirement of this.entry(type).retirements) {
      if (retirement.matches === undefined || retirement.matches(data)) return retirement.why;
    }
    return undefined;
  }

  /** What admission needs to know about `type`, worked out once and then looked up. */
  entry(type: string): TypeEntry {
    let entry = this.#entries.get(type);
    if (entry === undefined) {
      const definition = this.#definitions.get(type);
      entry = {
        valid: EVENT_TYPE_PATTERN.test(type),
        definition,
        passes: definition === undefined ? undefined : schemaCheck(definition.schema),
        ignorable: definition === undefined && this.#ignorablePrefixes.some((prefix) => type.startsWith(prefix)),
        retirements: this.#retired.get(type) ?? [],
        rules: this.#rules.flatMap((rule, index) => (rule.types === undefined || rule.types.has(type) ? [index] : [])),
      };
      this.#entries.set(type, entry);
    }
    return entry;
  }

  /** Adds an admission rule that every appended or loaded event must pass. */
  rule(...rules: AdmissionRule[]): this {
    for (const rule of rules) {
      if (this.#rules.some((existing) => existing.name === rule.name)) {
        throw new LogError("LOG_DUPLICATE_DEFINITION", `admission rule ${rule.name} is already registered`);
      }
      this.#rules.push(rule);
    }
    this.#entries.clear();
    return this;
  }

  /** The definition of `type`, if one was registered. */
  definition(type: string): EventDefinition | undefined {
    return this.#definitions.get(type);
  }

  /** Whether `type` is unknown but admitted as opaque JSON. */
  isIgnorable(type: string): boolean {
    return this.entry(type).ignorable;
  }

  /** The admission rules in registration order. */
  get rules(): readonly AdmissionRule[] {
    return this.#rules;
  }
}
