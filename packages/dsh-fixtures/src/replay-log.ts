import { reconstructRequests } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { LogEvent } from "dsh-log";
import { headerSeqs } from "./check.js";
import type { FixtureAgentSettings } from "./manifest.js";
import { replaySession, type ReplayOptions, type ReplayOutcome } from "./replay.js";
import { deriveRevisions } from "./revisions.js";

/** What a replay of a session log (rather than a fixture) needs besides its events. */
export interface LogReplaySettings {
  /** The agent settings the session ran with (step limit, compaction, trims); they are not in the log. */
  readonly agent?: FixtureAgentSettings;
  /** Where the session's images are, when it has any. */
  readonly attachments?: AttachmentStore;
}

/**
 * Replays a session's log keylessly from `fromSeq` on (events before it are the seed, copied as they
 * are; `fromSeq` should be a turn's start): the prompt-and-tools revisions are read off the log itself,
 * so no fixture directory is needed. `dsh what-if` replays a change this way.
 */
export async function replayLog(events: readonly LogEvent[], fromSeq: number, settings: LogReplaySettings = {}, options: ReplayOptions = {}): Promise<ReplayOutcome> {
  const attachments = settings.attachments;
  const requests = await reconstructRequests(events, attachments === undefined ? {} : { attachments });
  // Revisions from the start: the first replayed request may run under a header logged before the fork.
  const pinned = deriveRevisions(requests, headerSeqs(events), 0);
  return replaySession(
    { events, seedLength: fromSeq, requests, headers: pinned.headers, revisions: pinned.revisions, agent: settings.agent ?? {}, attachments, workdir: undefined },
    options,
  );
}
