import type { Message } from "dsh-llm";
import type { AppendList, SurfaceNode } from "dsh-surface";
import { messageWeight } from "./weights.js";

/** What is added up per event: tokens by how they were billed, dollars by kind, output, and requests. */
export const Channel = { Read: 0, Write1h: 1, Write5m: 2, Uncached: 3, ReadUsd: 4, WriteUsd: 5, InputUsd: 6, OutputTokens: 7, OutputUsd: 8, Requests: 9 } as const;
export type Channel = (typeof Channel)[keyof typeof Channel];
export const CHANNELS = 10;

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

/** The first index of `ends` (ascending) whose value lies past `position`, among the first `count`. */
function firstPast(ends: readonly number[], position: number, count: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ends[middle]! > position) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** The per-event totals, by seq. */
export type Totals = Map<number, Float64Array>;

export function addTo(totals: Totals, seq: number, channel: Channel, amount: number): void {
  let row = totals.get(seq);
  if (row === undefined) totals.set(seq, (row = new Float64Array(CHANNELS)));
  row[channel]! += amount;
}

/**
 * The surface's parts laid out by weight, in order, with amounts per unit of weight added over a run
 * of parts in constant time (a difference array per channel, settled into `totals` when the surface
 * is rewritten and at the end). A surface that only grows is laid out once, part by part, so pricing
 * a session is linear in its events, not in the sum of its requests' lengths.
 */
export class SurfaceParts implements Layout {
  #nodes: AppendList<SurfaceNode> | undefined;
  #seqs: number[] = [];
  #weights: number[] = [];
  /** The weight through each part. */
  #ends: number[] = [];
  #diff: number[][] = [];
  /** Counts rewrites: a request laid out before one cannot use this layout. */
  generation = 0;

  constructor(private readonly totals: Totals) {}

  /**
   * Follows the surface: lays out its new parts, or settles and lays out all of them again when it was
   * rewritten. Returns the index of the first part it laid out (the length when none).
   */
  follow(nodes: AppendList<SurfaceNode>, messages: AppendList<Message>): number {
    if (this.#nodes === nodes) return nodes.length;
    let from = 0;
    if (this.#nodes !== undefined && nodes.startsWith(this.#nodes)) from = this.#nodes.length;
    else if (this.#nodes !== undefined) {
      this.settle();
      this.generation++;
      this.#seqs = [];
      this.#weights = [];
      this.#ends = [];
      this.#diff = [];
    }
    for (let index = from; index < nodes.length; index++) {
      const weight = messageWeight(messages.at(index)!);
      this.#seqs.push(nodes.at(index)!.seq);
      this.#weights.push(weight);
      this.#ends.push((this.#ends.at(-1) ?? 0) + weight);
    }
    this.#nodes = nodes;
    return from;
  }

  seq(index: number): number {
    return this.#seqs[index]!;
  }

  start(index: number): number {
    return index === 0 ? 0 : this.#ends[index - 1]!;
  }

  end(index: number): number {
    return this.#ends[index]!;
  }

  partAt(position: number, count: number): number {
    return firstPast(this.#ends, position, count);
  }

  addRange(from: number, to: number, channel: Channel, perWeight: number): void {
    if (to <= from || perWeight === 0) return;
    const diff = (this.#diff[channel] ??= []);
    diff[from] = (diff[from] ?? 0) + perWeight;
    diff[to] = (diff[to] ?? 0) - perWeight;
  }

  /** Moves what the ranges added into the totals. */
  settle(): void {
    for (let channel = 0; channel < CHANNELS; channel++) {
      const diff = this.#diff[channel];
      if (diff === undefined) continue;
      let running = 0;
      for (let index = 0; index < this.#seqs.length; index++) {
        running += diff[index] ?? 0;
        if (running !== 0) addTo(this.totals, this.#seqs[index]!, channel as Channel, channel === Channel.Requests ? running : running * this.#weights[index]!);
      }
      this.#diff[channel] = [];
    }
  }
}

/**
 * The parts of a request whose surface was rewritten before its usage came (the live layout no
 * longer holds them): laid out alone, with ranges added part by part.
 */
export class ListedParts implements Layout {
  readonly #seqs: number[] = [];
  readonly #weights: number[] = [];
  readonly #ends: number[] = [];

  constructor(
    private readonly totals: Totals,
    nodes: AppendList<SurfaceNode>,
    messages: AppendList<Message>,
  ) {
    for (let index = 0; index < nodes.length; index++) {
      const weight = messageWeight(messages.at(index)!);
      this.#seqs.push(nodes.at(index)!.seq);
      this.#weights.push(weight);
      this.#ends.push((this.#ends.at(-1) ?? 0) + weight);
    }
  }

  seq(index: number): number {
    return this.#seqs[index]!;
  }

  start(index: number): number {
    return index === 0 ? 0 : this.#ends[index - 1]!;
  }

  end(index: number): number {
    return this.#ends[index]!;
  }

  partAt(position: number, count: number): number {
    return firstPast(this.#ends, position, count);
  }

  addRange(from: number, to: number, channel: Channel, perWeight: number): void {
    for (let index = from; index < to; index++) addTo(this.totals, this.#seqs[index]!, channel, channel === Channel.Requests ? perWeight : perWeight * this.#weights[index]!);
  }
}
