import { LogError } from "./errors.js";
import type { EventInput, LogEvent } from "./event.js";
import { admitBatch } from "./admission.js";
import { isParsedBatch } from "./verified.js";
import type { AdmissionRule, EventRegistry } from "./registry.js";

/** Where committed events go to become durable; `write` resolves once they are. */
export interface LogSink {
  write(events: readonly LogEvent[]): Promise<void>;
  close(): Promise<void>;
}

/** Receives each batch that enters the log, in seq order, synchronously after it is committed or loaded. */
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
  /** Already persisted events the log starts with, re-admitted exactly as on append (e.g. a file's content). */
  readonly events?: Iterable<LogEvent>;
  /** Maps a seq of `events` to its line, for error messages. */
  readonly lineOf?: (seq: number) => number;
}

/**
 * The append-only session log. Appends are admitted synchronously and all-or-nothing (envelope,
 * retirements, schema, admission rules), committed in order, and durable when the returned promise
 * resolves. Events are deep-frozen. Listeners receive every batch that enters the log, appended or
 * loaded, in seq order, even when a listener appends.
 */
/** The failures of a sink that keep their own code when they turn a log read-only: each says what went wrong better than "not durable". */
const KEPT_CODES: ReadonlySet<LogError["code"]> = new Set(["LOG_CONFLICT", "LOG_WITNESS_FAILED", "LOG_LOCKED", "LOG_STORE_UNAVAILABLE"]);

export class EventLog {
  readonly registry: EventRegistry;
  readonly #events: LogEvent[] = [];
  readonly #listeners = new Set<LogListener>();
  readonly #sink: LogSink | undefined;
  readonly #clock: () => number;
  readonly #onListenerError: (error: unknown) => void;
  /** Committed batches not yet delivered to listeners, oldest first. */
  readonly #undelivered: (readonly LogEvent[])[] = [];
  #delivering = false;
  #ruleStates: unknown[];
  #failure: LogError | undefined;
  /** The sink write of the latest batch: sinks commit in order, so it settles after every earlier one. */
  #durable: Promise<void> = Promise.resolve();
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
    // A constructor's log starts empty and is thrown away if an event is refused: it can take the events in place.
    if (options.events !== undefined) this.#admitLoaded(options.events, options.lineOf, true);
  }

  /** Builds an in-memory log holding `events`, each re-admitted exactly as on append. */
  static from(registry: EventRegistry, events: Iterable<LogEvent>): EventLog {
    return new EventLog({ registry, events });
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

  /** Subscribes to every batch that enters the log (appended or loaded), in seq order; returns the unsubscribe function. */
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
   * Re-admits already persisted events into an in-memory log (seq must continue it), all or nothing,
   * and delivers them to listeners like an append. A log with a sink refuses (`LOG_LOAD_REFUSED`):
   * loaded events would never reach its file. `lineOf` maps a seq to its line for error messages.
   */
  load(events: Iterable<LogEvent>, lineOf?: (seq: number) => number): void {
    this.#assertWritable();
    if (this.#sink !== undefined) {
      throw new LogError("LOG_LOAD_REFUSED", "load() is for in-memory logs: this log persists to a sink that loaded events would never reach");
    }
    const admitted = this.#admitLoaded(events, lineOf, false);
    if (admitted.length > 0) this.#deliver(admitted);
  }

  #admitLoaded(events: Iterable<LogEvent>, lineOf: ((seq: number) => number) | undefined, inPlace: boolean): readonly LogEvent[] {
    const parsed = isParsedBatch(events);
    const admitted = admitBatch(this.registry, events, this.#events.length, this.#ruleStates, { parsed, lineOf, ...(inPlace ? { into: this.#events } : {}) });
    this.#ruleStates = admitted.states;
    if (!inPlace) for (const event of admitted.events) this.#events.push(event);
    return admitted.events;
  }

  #assertWritable(): void {
    if (this.#closed) throw new LogError("LOG_CLOSED", "the log is closed");
    if (this.#failure !== undefined) throw this.#failure;
  }

  #commit(inputs: readonly EventInput[]): Promise<readonly LogEvent[]> {
    this.#assertWritable();
    const time = this.#clock;
    const candidates = inputs.map((input, index) => ({ seq: this.#events.length + index, type: input.type, time: input.time ?? time(), data: input.data }));
    const { events, states } = admitBatch(this.registry, candidates, this.#events.length, this.#ruleStates);
    this.#ruleStates = states;
    for (const event of events) this.#events.push(event);
    // Hand the batch to the sink before listeners run, so a listener that appends cannot reorder the file.
    const durable = this.#sink === undefined ? Promise.resolve() : this.#sink.write(events);
    this.#durable = durable;
    this.#deliver(events);
    return durable.then(
      () => events,
      (cause: unknown) => {
        throw this.#failed(cause);
      },
    );
  }

  /**
   * The failure that turns the log read-only: another writer took the session over (`LOG_CONFLICT`),
   * the witness, the store's lock or the store itself failed (`LOG_WITNESS_FAILED`, `LOG_LOCKED`,
   * `LOG_STORE_UNAVAILABLE`), each said as such, or the sink could not make a batch durable
   * (`LOG_SINK_FAILED`, with its cause's message and the cause).
   */
  #failed(cause: unknown): LogError {
    this.#failure ??=
      cause instanceof LogError && KEPT_CODES.has(cause.code)
        ? new LogError(cause.code, `${cause.message}; this log is now read-only`, { cause })
        : new LogError("LOG_SINK_FAILED", `the log could not be made durable (${cause instanceof Error ? cause.message : String(cause)}); it is now read-only`, { cause });
    return this.#failure;
  }

  /**
   * Resolves once every event appended so far is durable, or rejects with the failure that stopped
   * it: what a listener awaits before it shows an event as logged.
   */
  whenDurable(): Promise<void> {
    return this.#durable.then(
      () => undefined,
      (cause: unknown) => {
        throw this.#failed(cause);
      },
    );
  }

  /** Delivers `events` to every listener after all earlier batches, even when called from a listener. */
  #deliver(events: readonly LogEvent[]): void {
    this.#undelivered.push(events);
    if (this.#delivering) return;
    this.#delivering = true;
    try {
      for (let batch = this.#undelivered.shift(); batch !== undefined; batch = this.#undelivered.shift()) {
        for (const listener of this.#listeners) {
          try {
            listener(batch);
          } catch (error) {
            this.#onListenerError(error);
          }
        }
      }
    } finally {
      this.#delivering = false;
    }
  }
}
