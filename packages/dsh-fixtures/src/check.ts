import { reconstructRequests, stepEndEvent, type ReconstructedRequest } from "dsh-agent";
import type { CacheDiagnosis } from "dsh-llm";
import { describeHeaderChanges, requestHeaderEvent } from "dsh-header";
import { type LogEvent } from "dsh-log";
import { serializeEventLine } from "dsh-log/store";
import { checkCache, type CacheLimits } from "./cache-floor.js";
import { canonicalSession } from "./canonical.js";
import { cacheBreaks, compareRequests } from "./diff.js";
import { FixtureError } from "./errors.js";
import { FIXTURE_FILES, loadFixture, writeFixtureFiles, type Fixture } from "./fixture-dir.js";
import type { FixtureManifest } from "./manifest.js";
import { replaySession, type ReplayOptions } from "./replay.js";
import { formatFixtureReport, replayDiffers, textDiff, type CacheBreak, type FixtureReport, type ReplayDifferences } from "./report.js";
import { deriveRevisions, type Revision, type RevisionMap } from "./revisions.js";

/** A replay of a fixture, canonical, with what it would pin. */
interface Replayed {
  readonly events: readonly LogEvent[];
  readonly requests: readonly ReconstructedRequest[];
  readonly pinned: RevisionMap;
  readonly overruns: readonly string[];
  readonly unused: { readonly loop: number; readonly summaries: number };
}

/** The seqs of a log's `request/header` events. */
export function headerSeqs(events: readonly LogEvent[]): number[] {
  return events.filter((event) => requestHeaderEvent.is(event)).map((event) => event.seq);
}

function sidecarDifferences(fixture: Fixture, pinned: RevisionMap): string[] {
  const lines: string[] = [];
  if (fixture.revisions.length !== pinned.revisions.length) lines.push(`the fixture pins ${fixture.revisions.length} revision(s), the replay uses ${pinned.revisions.length}`);
  for (const revision of pinned.revisions) {
    const pinnedBefore: Revision | undefined = fixture.revisions.find((candidate) => candidate.id === revision.id);
    if (pinnedBefore === undefined) continue;
    if (pinnedBefore.prompt !== revision.prompt) {
      lines.push([`${FIXTURE_FILES.prompt(revision.id)} differs from the prompt the replay sent:`, ...textDiff(pinnedBefore.prompt, revision.prompt, "  ")].join("\n"));
    }
    const config = { provider: "-", model: "-" };
    const toolChanges = describeHeaderChanges({ config, tools: pinnedBefore.tools }, { config, tools: revision.tools });
    if (toolChanges.length > 0) lines.push(`${FIXTURE_FILES.tools(revision.id)} differs from the tools the replay offered: ${toolChanges.join("; ")}`);
  }
  const describe = (header: FixtureManifest["headers"][number] | undefined) => (header === undefined ? "none" : `${header.reason} → ${header.revision}`);
  for (let i = 0; i < Math.max(fixture.manifest.headers.length, pinned.headers.length); i++) {
    const before = fixture.manifest.headers[i];
    const after = pinned.headers[i];
    if (before?.revision !== after?.revision) lines.push(`header snapshot ${i + 1} (seq ${(after ?? before)!.seq}): the fixture pins ${describe(before)}, the replay ${describe(after)}`);
  }
  return lines;
}

function describeEvent(event: LogEvent | undefined): string {
  if (event === undefined) return "nothing";
  return requestHeaderEvent.is(event) ? `request/header (${event.data.reason})` : event.type;
}

function logDifferences(recorded: readonly LogEvent[], replayed: readonly LogEvent[]): FixtureReport["log"] {
  const examples: string[] = [];
  let differing = 0;
  for (let seq = 0; seq < Math.max(recorded.length, replayed.length); seq++) {
    const before = recorded[seq];
    const after = replayed[seq];
    if (before !== undefined && after !== undefined && serializeEventLine(before) === serializeEventLine(after)) continue;
    differing++;
    if (examples.length < 3) {
      examples.push(before?.type === after?.type ? `seq ${seq}: ${describeEvent(before)} with other data` : `seq ${seq}: the fixture has ${describeEvent(before)}, the replay ${describeEvent(after)}`);
    }
  }
  return { differing, examples };
}

/** The provider's recorded cache diagnosis of each request, by its number (1-based), where the session asked for one. */
function recordedDiagnoses(events: readonly LogEvent[], recorded: readonly ReconstructedRequest[]): Map<number, CacheDiagnosis> {
  const byStep = new Map<string, CacheDiagnosis>();
  for (const event of events) {
    if (stepEndEvent.is(event) && event.data.cacheDiagnosis !== undefined) byStep.set(`${event.data.turn}.${event.data.step}`, event.data.cacheDiagnosis);
  }
  const out = new Map<number, CacheDiagnosis>();
  recorded.forEach((request, index) => {
    const diagnosis = byStep.get(`${request.turn}.${request.step}`);
    if (diagnosis !== undefined) out.set(index + 1, diagnosis);
  });
  return out;
}

/**
 * Breaks the replay has and the fixture had not, and the other way round. Where the provider
 * diagnosed the recorded request, its verdict goes with the break: a new break the provider saw as a
 * hit when recording is one the change introduced; a break gone that it saw as a miss, one it removed.
 */
function breakChanges(events: readonly LogEvent[], recorded: readonly ReconstructedRequest[], replayed: readonly ReconstructedRequest[]): FixtureReport["breaks"] {
  const before = cacheBreaks(recorded);
  const after = cacheBreaks(replayed);
  const diagnoses = recordedDiagnoses(events, recorded);
  const withProvider = (number: number, why: string): CacheBreak => {
    const provider = diagnoses.get(number);
    return provider === undefined ? { number, why } : { number, why, provider };
  };
  const added: CacheBreak[] = [...after].filter(([number]) => !before.has(number)).map(([number, why]) => withProvider(number, why));
  const removed: CacheBreak[] = [...before].filter(([number]) => !after.has(number)).map(([number, why]) => withProvider(number, why));
  return { added, removed };
}

async function replayFixture(fixture: Fixture, recorded: readonly ReconstructedRequest[], options: ReplayOptions): Promise<Replayed> {
  const seedLength = fixture.header.parent?.seedLength ?? 0;
  const outcome = await replaySession(
    { events: fixture.events, seedLength, requests: recorded, headers: fixture.manifest.headers, revisions: fixture.revisions, agent: fixture.manifest.agent, attachments: fixture.attachments, workdir: fixture.workdir },
    options,
  );
  const { events } = canonicalSession(fixture.header, outcome.events, { name: fixture.manifest.name, cwd: fixture.workdir });
  const requests = await reconstructRequests(events, { attachments: fixture.attachments });
  return { events, requests, pinned: deriveRevisions(requests, headerSeqs(events), seedLength), overruns: outcome.overruns, unused: outcome.unused };
}

/** Replay options, or a function that chooses them from the loaded fixture (its manifest's tool mode, say). */
export type FixtureReplayOptions = ReplayOptions | ((fixture: Fixture) => ReplayOptions);

async function compare(dir: string, options: FixtureReplayOptions, limits: CacheLimits = {}): Promise<{ fixture: Fixture; replayed: Replayed; report: FixtureReport }> {
  const fixture = await loadFixture(dir);
  const recorded = await reconstructRequests(fixture.events, { attachments: fixture.attachments });
  const replayed = await replayFixture(fixture, recorded, typeof options === "function" ? options(fixture) : options);
  const { unused } = replayed;
  const found: ReplayDifferences = {
    requests: { recorded: recorded.length, replayed: replayed.requests.length, differences: compareRequests(recorded, replayed.requests) },
    breaks: breakChanges(fixture.events, recorded, replayed.requests),
    sidecars: sidecarDifferences(fixture, replayed.pinned),
    log: logDifferences(fixture.events, replayed.events),
    replay: { overruns: replayed.overruns, unusedAnswers: unused.loop, unusedSummaries: unused.summaries },
  };
  const cache = limits.cacheFloor === undefined && limits.maxWriteAmp === undefined ? undefined : await checkCache(replayed.events, fixture.attachments, limits);
  const ok = !replayDiffers(found) && (cache === undefined || cache.ok);
  const report: FixtureReport = { name: fixture.manifest.name, ok, ...found, ...(cache === undefined ? {} : { cache }) };
  return { fixture, replayed, report };
}

/**
 * Replays the fixture in `dir` keyless through the current loop (with the current code's prompt and
 * tools when `options` supplies them, or a function of the loaded fixture that does) and reports every difference from what it records: requests
 * (header fields, surface nodes, cache consequence), cache breaks, sidecars and log events. With
 * `limits`, the replay's cache under the provider's modelled rules must also keep a cache-read share
 * of at least `cacheFloor` and a write amplification of at most `maxWriteAmp`.
 */
export async function checkFixture(dir: string, options: FixtureReplayOptions = {}, limits: CacheLimits = {}): Promise<FixtureReport> {
  return (await compare(dir, options, limits)).report;
}

/** {@link checkFixture} for test suites: resolves when the fixture is unchanged and keeps its cache limits, else throws `FIXTURE_MISMATCH` with the readable report as its message. */
export async function assertFixture(dir: string, options: FixtureReplayOptions = {}, limits: CacheLimits = {}): Promise<void> {
  const report = await checkFixture(dir, options, limits);
  if (!report.ok) throw new FixtureError("FIXTURE_MISMATCH", formatFixtureReport(report));
}

/**
 * Rewrites the fixture in `dir` from a keyless replay: log, manifest header list and sidecars, so a
 * check passes again. Returns what changed (the report a check would have given). Refuses, changing
 * nothing, when the replay needed model answers the fixture does not have: record it again instead.
 */
export async function refreshFixture(dir: string, options: FixtureReplayOptions = {}): Promise<FixtureReport> {
  const { fixture, replayed, report } = await compare(dir, options);
  if (report.ok) return report;
  if (replayed.overruns.length > 0) {
    throw new FixtureError("FIXTURE_UNREPLAYABLE", `cannot refresh ${dir}: ${replayed.overruns[0]}; record the session again`);
  }
  const manifest: FixtureManifest = { ...fixture.manifest, revisions: replayed.pinned.revisions.map(({ id }) => ({ id })), headers: [...replayed.pinned.headers] };
  await writeFixtureFiles(dir, { manifest, header: fixture.header, events: replayed.events, revisions: replayed.pinned.revisions });
  return report;
}
