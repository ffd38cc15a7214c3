import type { Message } from "dsh-llm";
import type { EventInput, EventLog, LogEvent } from "dsh-log";
import { systemMessageEvent, type SurfaceEvent } from "./events.js";
import { advanceSurface, surfaceViewOf, type SurfaceView } from "./projection.js";
import { surfaceAdmission, type SurfaceState } from "./surface-rule.js";

/** The current surface nodes `start..end`, named by their seqs, inclusive. */
export interface SurfaceRange {
  readonly start: number;
  readonly end: number;
}

/** A surface event to append as a replacement, without its `replaces` marker (the manager adds it). */
export type ReplacementInput = EventInput<SurfaceEvent["type"], object>;

/**
 * The live surface of a log. It starts from the surface the log's own admission reached (so opening
 * a long session admits nothing twice), and every read first folds the events the log gained since
 * with {@link advanceSurface} (however they entered: appended, loaded or appended by a listener), so
 * it is never stale. Each surface entry is projected once, when first seen.
 */
export class SurfaceManager {
  readonly #log: EventLog;
  /** The view at `#position`, made at the first read. */
  #view: SurfaceView | undefined;
  #position = 0;

  /** Attaches to `log`, whose registry must include the surface definitions and rule (`registerSurfaceEvents`). */
  constructor(log: EventLog) {
    log.ruleState(surfaceAdmission);
    this.#log = log;
  }

  /** The surface after the log's last event. */
  get view(): SurfaceView {
    if (this.#view === undefined) {
      const log = this.#log;
      this.#view = surfaceViewOf(log.ruleState(surfaceAdmission), (seq) => log.get(seq));
      this.#position = log.length;
    }
    for (; this.#position < this.#log.length; this.#position++) this.#view = advanceSurface(this.#view, this.#log.get(this.#position)!);
    return this.#view;
  }

  /** The admission state of the surface: nodes in order, generation, open tool calls. */
  get state(): SurfaceState {
    return this.view.state;
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
    return this.view.messages.toArray();
  }

  /** The content of the live system prompt at node 0, or `undefined` if the surface has none. */
  systemPrompt(): string | undefined {
    const first = this.view.messages.at(0);
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
    return systemMessageEvent.input({ content, source, replaces: { start: first.seq, end: first.seq, generation: this.generation + 1 } });
  }

  /** The replacement event for the nodes `start..end` (seqs), marked with the next generation. */
  replaceInput(range: SurfaceRange, replacement: ReplacementInput): EventInput {
    return this.replaceInputs([{ range, replacement }])[0]!;
  }

  /**
   * Replacement events for several disjoint node ranges, marked with consecutive generations, to be
   * appended together in this order (one batch, so one cache break).
   */
  replaceInputs(replacements: readonly { readonly range: SurfaceRange; readonly replacement: ReplacementInput }[]): EventInput[] {
    const next = this.generation + 1;
    return replacements.map(({ range, replacement }, index) => ({
      ...replacement,
      data: { ...replacement.data, replaces: { start: range.start, end: range.end, generation: next + index } },
    }));
  }

  /** Appends a replacement of the nodes `start..end`; used by compaction and tool-result trimming. */
  async replaceGeneration(range: SurfaceRange, replacement: ReplacementInput): Promise<LogEvent> {
    const [event] = await this.#log.append(this.replaceInput(range, replacement));
    return event!;
  }
}
