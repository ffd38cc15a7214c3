import { createHash } from "node:crypto";

/**
 * What a provider keeps of a request to diagnose the next one: settings whose change is a miss of its
 * own (`[reason, value]`, the model first), and the appendable part of the prompt (messages, input
 * items) as hashes with the token count at each one's end. Hashes and counts only, never text.
 */
export interface Fingerprint {
  readonly settings: readonly (readonly [reason: string, value: string])[];
  /** Tokens before the appendable part (tools, system prompt). */
  readonly base: number;
  /** The reason a change inside the appendable part is reported under. */
  readonly partsReason: string;
  readonly parts: readonly { readonly hash: string; readonly end: number }[];
}

/** Where the current request diverged from the one a fingerprint was taken of. */
export interface Divergence {
  readonly reason: string;
  /** The previous prompt's tokens from the divergence on: what could not be read. */
  readonly missedTokens: number;
  /** The previous prompt's tokens before the divergence. */
  readonly reusableTokens: number;
}

/** A short hash of any JSON value, for fingerprints. */
export function digest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value) ?? "").digest("hex").slice(0, 16);
}

/**
 * The first divergence of `current` from `previous`, as a provider's cache diagnosis names it: a
 * changed setting (in the order the provider checks them), else an earlier part that changed (only
 * appending keeps the prefix); `undefined` when `current` extends `previous`.
 */
export function divergence(previous: Fingerprint, current: Fingerprint): Divergence | undefined {
  const total = previous.parts.at(-1)?.end ?? previous.base;
  for (const [i, [reason, value]] of previous.settings.entries()) {
    if (current.settings[i]?.[1] !== value) return { reason, missedTokens: total, reusableTokens: 0 };
  }
  for (const [i, part] of previous.parts.entries()) {
    if (current.parts[i]?.hash !== part.hash) {
      const before = i === 0 ? previous.base : previous.parts[i - 1]!.end;
      return { reason: previous.partsReason, missedTokens: total - before, reusableTokens: before };
    }
  }
  return undefined;
}

/** Fingerprints by response id, the oldest forgotten first past `limit`, as a provider keeps them for a while. */
export class FingerprintStore {
  readonly #entries = new Map<string, Fingerprint>();
  readonly #limit: number;

  constructor(limit = 10_000) {
    this.#limit = limit;
  }

  keep(id: string, fingerprint: Fingerprint): void {
    this.#entries.set(id, fingerprint);
    for (const key of this.#entries.keys()) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(key);
    }
  }

  get(id: string): Fingerprint | undefined {
    return this.#entries.get(id);
  }

  /** Every fingerprint, oldest first, to save and {@link restore} elsewhere. */
  entries(): (readonly [string, Fingerprint])[] {
    return [...this.#entries];
  }

  /** Adds saved fingerprints (oldest first) as if their requests had been served. */
  restore(entries: Iterable<readonly [string, Fingerprint]>): void {
    for (const [id, fingerprint] of entries) this.keep(id, fingerprint);
  }
}
