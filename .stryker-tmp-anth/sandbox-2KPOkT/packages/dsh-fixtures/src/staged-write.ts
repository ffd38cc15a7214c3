import { lstat, mkdir, open, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { syncPath } from "dsh-base";
import { FixtureError } from "./errors.js";

/** Where a refresh puts the fixture's new files before they replace the old ones, inside the fixture. */
export const STAGING = ".refresh";
/** Created in the staging folder once every new file is there: from then on the refresh is done, whatever happens. */
const COMMITTED = "COMMITTED";

/** Writes `data` to `path` and makes it durable. */
async function writeDurably(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const handle = await open(path, "wx", 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The staging folder if there is one; anything else of that name (a file, a symlink) is refused. */
async function stagingOf(dir: string): Promise<string | undefined> {
  const staging = join(dir, STAGING);
  const entry = await lstat(staging).catch(() => undefined);
  if (entry === undefined) return undefined;
  if (entry.isSymbolicLink() || !entry.isDirectory()) {
    throw new FixtureError("FIXTURE_INVALID", `${staging} is not the folder a refresh of this fixture makes (a symlink or a file): remove it`);
  }
  return staging;
}

/**
 * Replaces files of the fixture in `dir` as one change: every file (relative path → text) is
 * written to a staging folder and synced, a marker commits them, and only then are they renamed into
 * place and `afterMove` runs (removing what the new files no longer name). A process killed before
 * the marker leaves the fixture as it was; after it, {@link settleStagedWrite} finishes the change.
 */
export async function stagedWrite(dir: string, files: ReadonlyMap<string, string>, afterMove: () => Promise<void>): Promise<void> {
  await settleStagedWrite(dir, afterMove);
  const staging = join(dir, STAGING);
  await mkdir(staging);
  for (const [file, text] of files) await writeDurably(join(staging, file), text);
  for (const folder of new Set([...files.keys()].map((file) => dirname(join(staging, file))))) await syncPath(folder);
  await writeDurably(join(staging, COMMITTED), "");
  await syncPath(staging);
  await settleStagedWrite(dir, afterMove);
}

/**
 * Finishes or discards a staged write an interrupted process left in `dir`: a committed one is moved
 * into place (the manifest, `fixture.json`, last) and `afterMove` runs; an uncommitted one is removed.
 * Nothing to do when there is none.
 */
export async function settleStagedWrite(dir: string, afterMove: () => Promise<void>): Promise<void> {
  const staging = await stagingOf(dir);
  if (staging === undefined) return;
  const committed = await lstat(join(staging, COMMITTED)).then(() => true, () => false);
  if (committed) {
    const files = await stagedFiles(staging);
    const ordered = [...files.filter((file) => file !== "fixture.json"), ...files.filter((file) => file === "fixture.json")];
    for (const file of ordered) {
      await mkdir(dirname(join(dir, file)), { recursive: true });
      await rename(join(staging, file), join(dir, file));
    }
    await syncPath(dir);
    await afterMove();
  }
  await rm(staging, { recursive: true, force: true });
}

/** The files under the staging folder, one level of folders deep as a fixture's are (relative paths, the marker left out). */
async function stagedFiles(staging: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(staging, { withFileTypes: true })) {
    if (entry.isFile() && entry.name !== COMMITTED) files.push(entry.name);
    if (entry.isDirectory()) for (const name of await readdir(join(staging, entry.name))) files.push(`${entry.name}/${name}`);
  }
  return files;
}
