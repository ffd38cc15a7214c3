import type { LogEvent } from "dsh-log";
import { AgentError } from "./errors.js";
import { turnEndEvent } from "./events.js";
import { loopAdmission } from "./loop-rule.js";

/** The seqs a log can be forked at: the ends of its closed turns. */
export function forkPoints(events: readonly LogEvent[]): number[] {
  return events.filter((event) => turnEndEvent.is(event)).map((event) => event.seq);
}

/**
 * The seed of a fork at `at`: the events `0..at` (inclusive), which must end on a closed turn with
 * no compaction under way. Create the new log with it (`createJsonlLog(path, { fork })`); an agent
 * over that log then writes a `resume` snapshot, so any override shows as attributable drift.
 */
export function forkSeed(events: readonly LogEvent[], at: number): LogEvent[] {
  if (!Number.isInteger(at) || at < 0 || at >= events.length) {
    throw new AgentError("AGENT_INVALID_FORK", `seq ${at} is not in the log (it has ${events.length} events)`);
  }
  let state = loopAdmission.initial();
  for (const event of events.slice(0, at + 1)) state = loopAdmission.admit(state, event);
  if (state.openTurn !== undefined || state.compacting) {
    // The nearest point: the last turn end before `at`, or (inside the first turn) the first one after it.
    const points = forkPoints(events);
    const nearest = points.filter((seq) => seq <= at).at(-1) ?? points.find((seq) => seq > at);
    throw new AgentError(
      "AGENT_INVALID_FORK",
      `seq ${at} is inside ${state.compacting ? "a compaction" : `turn ${state.openTurn}`}; fork at the end of a turn` +
        (nearest === undefined ? "" : `, such as seq ${nearest}`),
    );
  }
  return events.slice(0, at + 1);
}
