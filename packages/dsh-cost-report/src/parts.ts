import type { Message } from "dsh-llm";
import type { AppendList, SurfaceNode } from "dsh-surface";
import { messageWeight } from "./weights.js";

/** What is added up per event: tokens by how they were billed, dollars by kind, output, and requests. */
export const Channel = { Read: 0, Write1h: 1, Write5m: 2, Uncached: 3, ReadUsd: 4, WriteUsd: 5, InputUsd: 6, OutputTokens: 7, OutputUsd: 8, Requests: 9 } as const;
export type Channel = (typeof Channel)[keyof typeof Channel];
const CHANNELS = 10;

/** The per-event totals, by seq. */
export type Totals = Map<number, Float64Array>;

/** Adds `amount` to the total of `seq` on `channel`. */
export function addTo(totals: Totals, seq: number, channel: Channel, amount: number): void {
  let row = totals.get(seq);
  if (row === undefined) totals.set(seq, (row = new Float64Array(CHANNELS)));
  row[channel]! += amount;
}

/** A request's parts in prompt order, by weight, and how amounts are added to them. */
export interface Layout {
  seq(index: number): number;
  start(index: number): number;
  end(index: number): number;
  /** The first part whose end lies past `position`, among the first `count` (the last of them at the end). */
  partAt(position: number, count: number): number;
  /** Adds `perWeight` times each part's weight (once each for `Requests`) to parts `from` to `to` (exclusive). */
  addRange(from: number, to: number, channel: Channel, perWeight: number): void;
}

/** Parts laid out in order by weight: their seqs, weights and where each ends. */
abstract class LaidOut implements Layout {
  protected seqs: number[] = [];
  protected weights: number[] = [];
  /** The weight through each part. */
  protected ends: number[] = [];

  constructor(protected readonly totals: Totals) {}

  /** Lays out parts `from` on of `nodes`, weighed by their messages. */
  protected lay(nodes: AppendList<SurfaceNode>, messages: AppendList<Message>, from: number): void {
    for (let index = from; index < nodes.length; index++) {
      const weight = messageWeight(messages.at(index)!);
      this.seqs.push(nodes.at(index)!.seq);
      this.weights.push(weight);
      this.ends.push((this.ends.at(-1) ?? 0) + weight);
    }
  }

  seq(index: number): number {
    return this.seqs[index]!;
  }

  start(index: number): number {
    return this.ends[index - 1] ?? 0;
  }

  end(index: number): number {
    return this.ends[index]!;
  }

  partAt(position: number, count: number): number {
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.ends[middle]! > position) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** What adding `perWeight` over a part gives it on `channel`: per unit of its weight, or once for `Requests`. */
  protected amount(index: number, channel: Channel, perWeight: number): number {
    return channel === Channel.Requests ? perWeight : perWeight * this.weights[index]!;
  }

  abstract addRange(from: number, to: number, channel: Channel, perWeight: number): void;
}

/**
 * The surface's parts laid out by weight, in order, with amounts per unit of weight added over a run
 * of parts in constant time (a difference array per channel, settled into `totals` when the surface
 * is rewritten and at the end). A surface that only grows is laid out once, part by part, so pricing
 * a session is linear in its events, not in the sum of its requests' lengths.
 */
export class SurfaceParts extends LaidOut {
  #nodes: AppendList<SurfaceNode> | undefined;
  #diff: number[][] = [];
  /** Replaced at each rewrite: a request laid out under another cannot use this layout. */
  generation: object = {};

  /**
   * Follows the surface: lays out its new parts, or settles and lays out all of them again when it was
   * rewritten. Returns the index of the first part it laid out (the length when none).
   */
  follow(nodes: AppendList<SurfaceNode>, messages: AppendList<Message>): number {
    let from = 0;
    if (this.#nodes !== undefined && nodes.startsWith(this.#nodes)) from = this.#nodes.length;
    else if (this.#nodes !== undefined) {
      this.settle();
      this.generation = {};
      this.seqs = [];
      this.weights = [];
      this.ends = [];
      this.#diff = [];
    }
    this.lay(nodes, messages, from);
    this.#nodes = nodes;
    return from;
  }

  addRange(from: number, to: number, channel: Channel, perWeight: number): void {
    const diff = (this.#diff[channel] ??= []);
    diff[from] = (diff[from] ?? 0) + perWeight;
    diff[to] = (diff[to] ?? 0) - perWeight;
  }

  /** Moves what the ranges added into the totals. */
  settle(): void {
    this.#diff.forEach((diff, channel) => {
      let running = 0;
      for (let index = 0; index < this.seqs.length; index++) {
        running += diff[index] ?? 0;
        addTo(this.totals, this.seqs[index]!, channel as Channel, this.amount(index, channel as Channel, running));
      }
    });
  }
}

/**
 * The parts of a request whose surface was rewritten before its usage came (the live layout no
 * longer holds them): laid out alone, with ranges added part by part.
 */
export class ListedParts extends LaidOut {
  constructor(totals: Totals, nodes: AppendList<SurfaceNode>, messages: AppendList<Message>) {
    super(totals);
    this.lay(nodes, messages, 0);
  }

  addRange(from: number, to: number, channel: Channel, perWeight: number): void {
    for (let index = from; index < to; index++) addTo(this.totals, this.seqs[index]!, channel, this.amount(index, channel, perWeight));
  }
}
