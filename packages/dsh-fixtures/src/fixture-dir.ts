import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { ConfinedFileError, openConfined } from "dsh-base";
import { createAgentRegistry } from "dsh-agent";
import { FsAttachmentStore } from "dsh-attachments";
import { toolSchemaSchema } from "dsh-llm/schemas";
import { readJsonlLog, type LogEvent } from "dsh-log";
import { serializeEventLine, serializeHeaderLine, type JsonlHeader } from "dsh-log/store";
import { z } from "zod";
import { FixtureError, parseFixtureJson } from "./errors.js";
import { parseManifest, serializeManifest, type FixtureManifest } from "./manifest.js";
import type { Revision } from "./revisions.js";
import { settleStagedWrite, stagedWrite } from "./staged-write.js";

/** The files of a fixture directory, relative to it. */
export const FIXTURE_FILES = {
  manifest: "fixture.json",
  log: "session.jsonl",
  objects: "objects",
  prompt: (id: string) => `prompts/${id}.txt`,
  tools: (id: string) => `tools/${id}.json`,
} as const;

/** A fixture as read from its directory. */
export interface Fixture {
  readonly dir: string;
  readonly manifest: FixtureManifest;
  readonly header: JsonlHeader;
  readonly events: readonly LogEvent[];
  /** The pinned revisions, sidecars read. */
  readonly revisions: readonly Revision[];
  /** The fixture's own attachment objects. */
  readonly attachments: FsAttachmentStore;
  /** Absolute path of the working directory real tools run in. */
  readonly workdir: string | undefined;
}

const toolsSidecarSchema = z.array(toolSchemaSchema);

/** Reads a fixture file, proven to be a regular file inside the fixture (a symlink out of it is refused, never followed). */
async function readText(dir: string, file: string): Promise<string> {
  let handle;
  try {
    handle = await openConfined(dir, file);
  } catch (cause) {
    const code = cause instanceof ConfinedFileError ? cause.code : (cause as NodeJS.ErrnoException).code;
    if (code === "FILE_MISSING") throw new FixtureError("FIXTURE_INVALID", `${join(dir, file)} is missing`, { cause });
    if (code === "FILE_OUTSIDE") throw new FixtureError("FIXTURE_INVALID", `${join(dir, file)} leads outside the fixture`, { cause });
    if (code === "FILE_NOT_REGULAR") throw new FixtureError("FIXTURE_INVALID", `cannot read ${join(dir, file)}: not a regular file`, { cause });
    throw new FixtureError("FIXTURE_INVALID", `cannot read ${join(dir, file)}: ${code ?? String(cause)}`, { cause });
  }
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * The fixture's working directory, resolved: the manifest's relative path (its schema refuses `..`),
 * proven to be a real directory inside the fixture (a symlink to `/` or anywhere else is refused), so
 * real tools replayed in it read nothing outside the fixture.
 */
async function confinedWorkdir(dir: string, workdir: string): Promise<string> {
  const outside = () => new FixtureError("FIXTURE_INVALID", `the working directory ${workdir} of ${dir} leads outside the fixture`);
  const path = join(dir, workdir);
  const entry = await lstat(path).catch(() => undefined);
  if (entry === undefined) throw new FixtureError("FIXTURE_INVALID", `the working directory ${path} is missing`);
  if (entry.isSymbolicLink()) throw outside();
  try {
    await (await openConfined(dir, workdir, { directory: true })).close();
  } catch (cause) {
    throw cause instanceof ConfinedFileError && cause.code === "FILE_NOT_DIRECTORY" ? new FixtureError("FIXTURE_INVALID", `the working directory ${path} is not a directory`, { cause }) : outside();
  }
  return path;
}

/** Refuses to write into `folder` of the fixture when it is anything but a real directory inside it (a symlink would write and delete elsewhere). */
async function assertOwnFolder(dir: string, folder: string): Promise<void> {
  const entry = await lstat(join(dir, folder)).catch(() => undefined);
  if (entry !== undefined && (entry.isSymbolicLink() || !entry.isDirectory())) {
    throw new FixtureError("FIXTURE_INVALID", `${join(dir, folder)} is not a directory of the fixture (a symlink or a file): nothing is written through it`);
  }
}

/** Reads the tool schemas of a `tools/<id>.json` sidecar, validated. */
export function parseToolsSidecar(text: string, where: string): Revision["tools"] {
  return parseFixtureJson(toolsSidecarSchema, text, where);
}

/** The tool schemas as a sidecar holds them: two-space JSON, keys in the order the header has them, a final newline. */
export function serializeToolsSidecar(tools: Revision["tools"]): string {
  return `${JSON.stringify(tools, null, 2)}\n`;
}

/** Reads a fixture directory: manifest, canonical log (admitted as on load), sidecars. */
export async function loadFixture(dir: string): Promise<Fixture> {
  // A refresh a killed process left behind is finished (it had committed) or dropped (it had not).
  for (const folder of ["prompts", "tools"]) await assertOwnFolder(dir, folder);
  await settleStagedWrite(dir, () => removeStaleSidecars(dir));
  const manifest = parseManifest(await readText(dir, FIXTURE_FILES.manifest), join(dir, FIXTURE_FILES.manifest));
  let loaded;
  try {
    if ((await lstat(join(dir, FIXTURE_FILES.log)).catch(() => undefined))?.isSymbolicLink() === true) {
      throw new Error("it is a symlink, which a fixture never follows");
    }
    loaded = await readJsonlLog(join(dir, FIXTURE_FILES.log), createAgentRegistry());
  } catch (cause) {
    throw new FixtureError("FIXTURE_INVALID", `${join(dir, FIXTURE_FILES.log)}: ${(cause as Error).message}`, { cause });
  }
  if (loaded.tornTail !== undefined) throw new FixtureError("FIXTURE_INVALID", `${join(dir, FIXTURE_FILES.log)} ends in a torn line ${loaded.tornTail.line}`);
  const revisions: Revision[] = [];
  for (const { id } of manifest.revisions) {
    const prompt = await readText(dir, FIXTURE_FILES.prompt(id));
    const tools = parseToolsSidecar(await readText(dir, FIXTURE_FILES.tools(id)), join(dir, FIXTURE_FILES.tools(id)));
    revisions.push({ id, prompt, tools });
  }
  return {
    dir,
    manifest,
    header: loaded.header,
    events: loaded.log.slice(),
    revisions,
    attachments: new FsAttachmentStore(join(dir, FIXTURE_FILES.objects)),
    workdir: manifest.workdir === undefined ? undefined : await confinedWorkdir(dir, manifest.workdir),
  };
}

/**
 * The canonical log's bytes: the header line, then one line per event, in JSONL format version 1 (a
 * fixture is a snapshot to read and diff, not a session being written: its lines carry no chain links).
 */
export function logText(header: JsonlHeader, events: readonly LogEvent[]): string {
  return serializeHeaderLine({ ...header, version: 1 }) + events.map(serializeEventLine).join("");
}

/**
 * Writes a fixture's manifest, log and sidecars into `dir` as one change (through real directories
 * of the fixture only): a process killed meanwhile leaves the fixture as it was, or the next load
 * completes the change. Sidecars of revisions that no longer exist are removed. Objects and the
 * working directory are left as they are.
 */
export async function writeFixtureFiles(
  dir: string,
  content: { readonly manifest: FixtureManifest; readonly header: JsonlHeader; readonly events: readonly LogEvent[]; readonly revisions: readonly Revision[] },
): Promise<void> {
  for (const folder of ["prompts", "tools"]) await assertOwnFolder(dir, folder);
  const files = new Map<string, string>();
  for (const revision of content.revisions) {
    files.set(FIXTURE_FILES.prompt(revision.id), revision.prompt);
    files.set(FIXTURE_FILES.tools(revision.id), serializeToolsSidecar(revision.tools));
  }
  files.set(FIXTURE_FILES.log, logText(content.header, content.events));
  files.set(FIXTURE_FILES.manifest, serializeManifest(content.manifest));
  await stagedWrite(dir, files, () => removeStaleSidecars(dir));
}

/** Removes the sidecars of revisions the manifest in `dir` does not name. */
async function removeStaleSidecars(dir: string): Promise<void> {
  const manifest = parseManifest(await readText(dir, FIXTURE_FILES.manifest), join(dir, FIXTURE_FILES.manifest));
  const kept = new Set(manifest.revisions.flatMap(({ id }) => [FIXTURE_FILES.prompt(id), FIXTURE_FILES.tools(id)]));
  for (const folder of ["prompts", "tools"]) {
    const names = await readdir(join(dir, folder)).catch(() => [] as string[]);
    for (const name of names) if (!kept.has(`${folder}/${name}`) && /^r[0-9]+\.(txt|json)$/.test(name)) await rm(join(dir, folder, name));
  }
}
