import { createAgentRegistry } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { modelSession, type Divergence } from "dsh-cache-report";
import { cacheReadShare } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { WireError } from "dsh-wire";
import { FixtureError } from "./errors.js";

/** The cache a fixture's replay must keep: a least cache-read share, a most write amplification. */
export interface CacheLimits {
  /** The least share of prompt tokens the replay may read from the modelled cache (0 to 1). */
  readonly cacheFloor?: number;
  /** The most cache-write tokens per prompt token new to a request the replay may write (where the provider bills writes). */
  readonly maxWriteAmp?: number;
}

/** A break of the replay's prefix: the request, the logged events that explain it, and where its bytes stop repeating the request before. */
export interface FloorBreak {
  readonly number: number;
  readonly turn: number;
  readonly step: number;
  readonly causes: readonly string[];
  readonly divergence?: Divergence;
}

/** The replay's cache under the provider's rules as the simulator models them, against the limits. */
export interface CacheCheck {
  /** Cache-read tokens over prompt tokens, over every request (`null` without any). */
  readonly share: number | null;
  /** Cache-write tokens over the prompt tokens new to each request (`null` when nothing was written: the provider bills no writes). */
  readonly writeAmp: number | null;
  readonly limits: CacheLimits;
  readonly ok: boolean;
  readonly breaks: readonly FloorBreak[];
}

/** The replay's requests served to the modelled cache; a request whose API cannot be told is `FIXTURE_CACHE_UNMODELLED`. */
async function modelled(events: readonly LogEvent[], attachments: AttachmentStore) {
  try {
    return await modelSession(EventLog.from(createAgentRegistry(), events), attachments, () => undefined);
  } catch (error) {
    if (error instanceof WireError) throw new FixtureError("FIXTURE_CACHE_UNMODELLED", `its cache cannot be modelled: ${error.message}`);
    throw error;
  }
}

/**
 * Serves every request of `events` (a replay) to the modelled provider cache and checks the limits:
 * the cache-read share at least `cacheFloor`, the write amplification at most `maxWriteAmp`. Every
 * break is named with the logged events behind it and the bytes where it starts.
 */
export async function checkCache(events: readonly LogEvent[], attachments: AttachmentStore, limits: CacheLimits): Promise<CacheCheck> {
  const session = await modelled(events, attachments);
  const share = cacheReadShare(session.requests.map((request) => ({ inputTokens: request.promptTokens, cacheReadTokens: request.cacheReadTokens })));
  const fresh = session.requests.reduce((sum, request) => sum + request.promptTokens - Math.min(request.promptTokens, request.repeatedTokens), 0);
  const written = session.totals.cacheWriteTokens;
  const writeAmp = written === 0 || fresh === 0 ? null : written / fresh;
  const breaks = session.requests.flatMap((request, index): FloorBreak[] =>
    request.isBreak ? [{ number: index + 1, turn: request.turn, step: request.step, causes: request.causes, ...(request.divergence === undefined ? {} : { divergence: request.divergence }) }] : [],
  );
  const floorHeld = limits.cacheFloor === undefined || (share ?? 0) >= limits.cacheFloor;
  const writesHeld = limits.maxWriteAmp === undefined || writeAmp === null || writeAmp <= limits.maxWriteAmp;
  return { share, writeAmp, limits, ok: floorHeld && writesHeld, breaks };
}
