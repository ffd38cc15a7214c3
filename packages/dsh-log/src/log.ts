import { LogError } from "./errors.js";
import type { EventInput, LogEvent } from "./event.js";
import { admitEnvelope, admitRules } from "./admission.js";
import type { AdmissionRule, EventRegistry } from "./registry.js";

/** Where committed events go to become durable; `write` resolves once they are. */
export interface LogSink {
  write(events: readonly LogEvent[]): Promise<void>;
  close(): Promise<void>;
}

/** Receives each committed batch, in order, synchronously after commit. */
export type LogListener = (events: readonly LogEvent[]) => void;

/** Options of {@link EventLog}. */
export interface EventLogOptions {
  readonly registry: EventRegistry;
  /** Persists committed events (e.g. a JSONL file). Without one the log lives in memory only. */
  readonly sink?: LogSink;
  /** Supplies `time` for inputs without one; defaults to `Date.now`. */
  readonly clock?: () => number;
  /** Receives errors thrown by listeners; by default they are rethrown asynchronously. */
  readonly onListenerError?: (error: unknown) => void;
}

/**
 * The append-only session log. Appends are admitted synchronously and all-or-nothing (envelope,
 * schema, legacy gate, admission rules), committed in order, and durable when the returned promise
 * resolves. Events are deep-frozen.
 */
export class EventLog {
  readonly registry: EventRegistry;
  readonly #events: LogEvent[] = [];
  readonly #listeners = new Set<LogListener>();
  readonly #sink: LogSink | undefined;
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown) => void;
  #ruleStates: unknown[];
  #failure: LogError | undefined;
  #closed = false;

  constructor(options: EventLogOptions) {
    this.registry = options.registry;
    this.#sink = options.sink;
    this.#clock = options.clock ?? Date.now;
    this.#onListenerError =
      options.onListenerError ??
      ((error) =>
        queueMicrotask(() => {
          throw error;
        }));
    this.#ruleStates = this.registry.rules.map((rule) => rule.initial());
  }

  /** Builds an in-memory log holding `events`, each re-admitted exactly as on append. */
  static from(registry: EventRegistry, events: Iterable<LogEvent>): EventLog {
    const log = new EventLog({ registry });
    log.load(events);
    return log;
  }

  /** The number of events; also the seq the next event will get. */
  get length(): number {
    return this.#events.length;
  }

  /** The event with sequence number `seq`. */
  get(seq: number): LogEvent | undefined {
    return this.#events[seq];
  }

  /** A copy of the events in `[start, end)`; events themselves are shared and frozen. */
  slice(start = 0, end = this.#events.length): LogEvent[] {
    return this.#events.slice(start, end);
  }

  /** Iterates the events in order. */
  [Symbol.iterator](): Iterator<LogEvent> {
    return this.#events[Symbol.iterator]();
  }

  /** The current state of an admission rule registered in this log's registry. */
  ruleState<State>(rule: AdmissionRule<State>): State {
    const index = this.registry.rules.indexOf(rule as AdmissionRule);
    if (index < 0) throw new LogError("LOG_RULE_VIOLATION", `admission rule ${rule.name} is not registered`);
    return this.#ruleStates[index] as State;
  }

  /**
   * Admits and commits `inputs` as one batch and returns the committed events once they are durable.
   * If any input is refused nothing is committed and the promise rejects with a `LogError`.
   */
  append(inputs: EventInput | readonly EventInput[]): Promise<readonly LogEvent[]> {
    try {
      return this.#commit(Array.isArray(inputs) ? inputs : [inputs as EventInput]);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Subscribes to committed batches; returns the unsubscribe function. */
  subscribe(listener: LogListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes the sink; later appends are refused. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#sink?.close();
  }

  /**
   * Re-admits already persisted events (seq must continue this log) without writing them to the sink.
   * `lineOf` maps an event to its line for error messages.
   */
  load(events: Iterable<LogEvent>, lineOf?: (seq: number) => number): void {
    const admitted: LogEvent[] = [];
    for (const event of events) {
      const seq = this.#events.length + admitted.length;
      admitted.push(admitEnvelope(this.registry, event, seq, lineOf?.(seq)));
    }
    this.#ruleStates = admitRules(this.registry, this.#ruleStates, admitted, lineOf && ((event) => lineOf(event.seq)));
    this.#events.push(...admitted);
  }

  #commit(inputs: readonly EventInput[]): Promise<readonly LogEvent[]> {
    if (this.#closed) throw new LogError("LOG_CLOSED", "the log is closed");
    if (this.#failure !== undefined) throw this.#failure;
    const start = this.#events.length;
    const events = inputs.map((input, index) =>
      admitEnvelope(
        this.registry,
        { seq: start + index, type: input.type, time: input.time ?? this.#clock(), data: input.data },
        start + index,
      ),
    );
    this.#ruleStates = admitRules(this.registry, this.#ruleStates, events);
    this.#events.push(...events);
    // Hand the batch to the sink before listeners run, so a listener that appends cannot reorder the file.
    const durable = this.#sink === undefined ? Promise.resolve() : this.#sink.write(events);
    for (const listener of this.#listeners) {
      try {
        listener(events);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
    return durable.then(
      () => events,
      (cause: unknown) => {
        this.#failure ??= new LogError("LOG_SINK_FAILED", "the log could not be made durable; it is now read-only", {
          cause,
        });
        throw this.#failure;
      },
    );
  }
}
