import { cp, mkdir, readdir, stat } from "node:fs/promises";
import { basename, join, relative, resolve, sep } from "node:path";
import { reconstructRequests } from "dsh-agent";
import { FsAttachmentStore, readImage, type AttachmentStore } from "dsh-attachments";
import { describeIssues } from "dsh-base";
import type { LogEvent } from "dsh-log";
import type { JsonlHeader } from "dsh-log/store";
import { messageImages } from "dsh-llm";
import { deriveEventMessage, isSurfaceEvent } from "dsh-surface";
import { canonicalSession } from "./canonical.js";
import { headerSeqs } from "./check.js";
import { FixtureError } from "./errors.js";
import { FIXTURE_FILES, writeFixtureFiles } from "./fixture-dir.js";
import { FIXTURE_FORMAT, FIXTURE_VERSION, fixtureManifestSchema, type FixtureAgentSettings, type FixtureManifest } from "./manifest.js";
import { replayPlan } from "./plan.js";
import { deriveRevisions } from "./revisions.js";
import { Tape } from "./tape.js";

/** Options of {@link recordFixture}. */
export interface RecordOptions {
  /** The fixture's name and canonical session id (default: the directory's name). */
  readonly name?: string;
  /** The working directory the session ran in: paths under it are made relative. */
  readonly cwd?: string;
  /** `recorded` (default): replays serve the logged tool results; `real`: the tools run in a copy of `workdir`. */
  readonly tools?: "recorded" | "real";
  /** For `real` tools: the directory copied into the fixture as `workdir/` (without `.git`, `node_modules`, `.dsh`). */
  readonly workdir?: string;
  /** The agent settings the session ran with (step limit, compaction and trim options). */
  readonly agent?: FixtureAgentSettings;
  /** Where the session's images are; required when it has any. */
  readonly attachments?: AttachmentStore;
}

const SKIPPED = new Set([".git", "node_modules", ".dsh"]);

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw cause;
  }
}

async function copyWorkdir(from: string, dir: string): Promise<void> {
  const source = resolve(from);
  const inside = relative(source, resolve(dir));
  if (inside === "" || (!inside.startsWith("..") && !inside.startsWith(sep))) {
    throw new FixtureError("FIXTURE_INVALID", `the fixture directory ${dir} is inside the working directory ${from} it would copy`);
  }
  if (!(await stat(source).catch(() => undefined))?.isDirectory()) throw new FixtureError("FIXTURE_INVALID", `working directory ${from} is not a directory`);
  await cp(source, join(dir, "workdir"), { recursive: true, filter: (path) => !SKIPPED.has(basename(path)) });
}

/**
 * Writes the session (its events, and the header of a JSONL log or store session, which a fork needs)
 * into `dir` as a fixture: the log in
 * canonical authored form, a prompt and a tools sidecar per revision, the manifest, the images it
 * references, and for real tools a copy of the working directory. Refuses a non-empty `dir`
 * (`FIXTURE_EXISTS`) and a session a keyless replay cannot reproduce (`FIXTURE_UNREPLAYABLE`), writing nothing.
 */
export async function recordFixture(session: { readonly header?: JsonlHeader; readonly events: readonly LogEvent[] }, dir: string, options: RecordOptions = {}): Promise<FixtureManifest> {
  const name = options.name ?? basename(resolve(dir));
  const tools = options.tools ?? "recorded";
  if (tools === "real" && options.workdir === undefined) throw new FixtureError("FIXTURE_INVALID", "real tools need a working directory to copy (workdir)");
  if (!(await isEmptyOrMissing(dir))) throw new FixtureError("FIXTURE_EXISTS", `${dir} is not empty: record into a new directory, or refresh the fixture there`);
  const header = session.header ?? { format: "dsh-log", version: 1, sessionId: name, createdAt: 0 };
  const canonical = canonicalSession(header, session.events, { name, cwd: options.cwd });
  const seedLength = canonical.header.parent?.seedLength ?? 0;
  replayPlan(canonical.events, seedLength);
  new Tape(canonical.events, seedLength);
  const requests = await reconstructRequests(canonical.events);
  const pinned = deriveRevisions(requests, headerSeqs(canonical.events), seedLength);
  const parsed = fixtureManifestSchema.safeParse({
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    name,
    tools,
    ...(tools === "real" ? { workdir: "workdir" } : {}),
    agent: options.agent ?? {},
    revisions: pinned.revisions.map(({ id }) => ({ id })),
    headers: pinned.headers,
  });
  if (!parsed.success) throw new FixtureError("FIXTURE_INVALID", `cannot record ${dir}: ${describeIssues(parsed.error.issues)}`);
  const manifest = parsed.data;
  const images = messageImages(canonical.events.filter(isSurfaceEvent).map(deriveEventMessage));
  if (images.length > 0 && options.attachments === undefined) throw new FixtureError("FIXTURE_INVALID", `the session references ${images.length} image(s): pass the attachment store they are in`);
  const bytes = await Promise.all(images.map((ref) => readImage(options.attachments!, ref)));
  await mkdir(dir, { recursive: true });
  if (tools === "real") await copyWorkdir(options.workdir!, dir);
  const objects = new FsAttachmentStore(join(dir, FIXTURE_FILES.objects));
  for (const image of bytes) await objects.put(image);
  await writeFixtureFiles(dir, { manifest, header: canonical.header, events: canonical.events, revisions: pinned.revisions });
  return manifest;
}
