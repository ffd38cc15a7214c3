import type { Message } from "dsh-llm";
import type { EventInput, EventLog, LogEvent } from "dsh-log";
import {
  deriveEventMessage,
  isSurfaceEvent,
  systemMessageEvent,
  type SurfaceEvent,
  type SurfaceReplace,
} from "./events.js";
import { surfaceAdmission, type SurfaceState } from "./surface-rule.js";

/** A surface event to append as a replacement, without its `replaces` marker (the manager adds it). */
export type ReplacementInput = EventInput<SurfaceEvent["type"], object>;

/**
 * The live surface of a log. It keeps `deriveMessages()` cached: each surface entry is projected
 * once, when first seen, with {@link deriveEventMessage}; a replace rebuilds the list, reusing the
 * projections of the nodes that survive. It reads the surface state the log's admission keeps.
 */
export class SurfaceManager {
  readonly #log: EventLog;
  readonly #projected = new Map<number, Message>();
  #messages: Message[] = [];
  readonly #unsubscribe: () => void;

  /** Attaches to `log`, whose registry must include the surface definitions and rule. */
  constructor(log: EventLog) {
    this.#log = log;
    this.#rebuild();
    this.#unsubscribe = log.subscribe((events) => this.#onCommit(events));
  }

  /** The admission state of the surface: nodes in order, generation, open tool calls. */
  get state(): SurfaceState {
    return this.#log.ruleState(surfaceAdmission);
  }

  /** The current replace generation (0 until the first replace). */
  get generation(): number {
    return this.state.generation;
  }

  /** The seqs of the current surface nodes, in order. */
  nodeSeqs(): number[] {
    return this.state.nodes.toArray().map((node) => node.seq);
  }

  /** A fresh array over the shared, deep-frozen messages of the current surface. */
  deriveMessages(): Message[] {
    return this.#messages.slice();
  }

  /** The content of the live system prompt at node 0, or `undefined` if the surface has none. */
  systemPrompt(): string | undefined {
    const first = this.#messages[0];
    return first?.role === "system" ? first.content : undefined;
  }

  /**
   * The event that makes `content` the live system prompt: an append on an empty surface, a node-0
   * replace when it differs, nothing when it is already live.
   */
  systemPromptInput(content: string, source = "system-prompt"): EventInput | undefined {
    const live = this.systemPrompt();
    if (live === content) return undefined;
    const first = this.state.nodes.at(0);
    if (first === undefined) return systemMessageEvent.input({ content, source });
    return systemMessageEvent.input({ content, source, replaces: this.#nextReplace(first.seq, first.seq) });
  }

  /** The replacement event for the nodes `start..end` (seqs), marked with the next generation. */
  replaceInput(range: { readonly start: number; readonly end: number }, replacement: ReplacementInput): EventInput {
    return { ...replacement, data: { ...replacement.data, replaces: this.#nextReplace(range.start, range.end) } };
  }

  /** Appends a replacement of the nodes `start..end`; used by compaction and tool-result trimming. */
  async replaceGeneration(
    range: { readonly start: number; readonly end: number },
    replacement: ReplacementInput,
  ): Promise<LogEvent> {
    const [event] = await this.#log.append(this.replaceInput(range, replacement));
    return event!;
  }

  /** Stops following the log. */
  detach(): void {
    this.#unsubscribe();
  }

  #nextReplace(start: number, end: number): SurfaceReplace {
    return { start, end, generation: this.generation + 1 };
  }

  #onCommit(events: readonly LogEvent[]): void {
    const surface = events.filter(isSurfaceEvent);
    if (surface.some((event) => event.data.replaces !== undefined)) {
      this.#rebuild();
      return;
    }
    for (const event of surface) this.#messages.push(this.#project(event));
  }

  #rebuild(): void {
    const nodes = this.state.nodes.toArray();
    const live = new Set(nodes.map((node) => node.seq));
    for (const seq of this.#projected.keys()) if (!live.has(seq)) this.#projected.delete(seq);
    this.#messages = nodes.map((node) => {
      const event = this.#log.get(node.seq);
      if (event === undefined || !isSurfaceEvent(event)) throw new RangeError(`surface node ${node.seq} is not in the log`);
      return this.#project(event);
    });
  }

  #project(event: SurfaceEvent): Message {
    let message = this.#projected.get(event.seq);
    if (message === undefined) {
      message = deriveEventMessage(event);
      this.#projected.set(event.seq, message);
    }
    return message;
  }
}
