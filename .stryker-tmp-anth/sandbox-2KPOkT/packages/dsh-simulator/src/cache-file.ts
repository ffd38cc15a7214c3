import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import type { Fingerprint } from "./diagnosis.js";

/** The most prefix entries a cache file keeps (the most recently used); about 7 MB. */
export const MAX_SAVED_PREFIXES = 100_000;
/** The most cache-diagnosis fingerprints a cache file keeps (the newest): enough to resume a session. */
export const MAX_SAVED_FINGERPRINTS = 64;

/** What a simulator's caches hold, with explicit-cache expiries in wall-clock epoch ms. */
export interface SavedCaches {
  /** Prefix-cache keys, least recently used first. */
  readonly prefixes: readonly string[];
  /** Explicit-cache entries and the wall-clock time each expires at. */
  readonly explicit: readonly (readonly [string, number])[];
  /** Cache-diagnosis fingerprints by answer id, oldest first. */
  readonly fingerprints?: readonly (readonly [string, Fingerprint])[];
}

const fingerprintSchema = z.strictObject({
  settings: z.array(z.tuple([z.string(), z.string()])),
  base: z.number(),
  partsReason: z.string(),
  parts: z.array(z.strictObject({ hash: z.string(), end: z.number() })),
});

const fileSchema = z.strictObject({
  format: z.literal("dsh-simulator-cache"),
  version: z.literal(1),
  prefixes: z.array(z.string()),
  explicit: z.array(z.tuple([z.string(), z.number()])),
  fingerprints: z.array(z.tuple([z.string(), fingerprintSchema])).exactOptional(),
});

/** The caches saved at `path`; empty when there is no file yet. A file that is not a cache file is refused, naming it. */
export async function readCacheFile(path: string): Promise<SavedCaches> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return { prefixes: [], explicit: [] };
    throw new Error(`cannot read the simulator cache ${path}: ${(cause as Error).message}`, { cause });
  }
  let parsed: ReturnType<typeof fileSchema.safeParse>;
  try {
    parsed = fileSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = fileSchema.safeParse(undefined);
  }
  if (!parsed.success) throw new Error(`${path} is not a simulator cache file (delete it to start with an empty cache)`);
  return parsed.data;
}

/**
 * Saves `caches` to `path`, merged with what the file holds now (another simulator may have saved
 * since this one read it): prefixes are united, newest use last, and capped at
 * {@link MAX_SAVED_PREFIXES}; an explicit entry keeps its later expiry; expired ones are dropped.
 * The file is replaced in one rename, so a reader sees the old or the new file, never a mix.
 */
export async function writeCacheFile(path: string, caches: SavedCaches, now = Date.now()): Promise<void> {
  const current = await readCacheFile(path).catch(() => ({ prefixes: [], explicit: [] }) as SavedCaches);
  const prefixes = new Set(current.prefixes);
  for (const key of caches.prefixes) {
    prefixes.delete(key);
    prefixes.add(key);
  }
  const explicit = new Map<string, number>();
  for (const [key, expiry] of [...current.explicit, ...caches.explicit]) {
    if (expiry > now) explicit.set(key, Math.max(explicit.get(key) ?? 0, expiry));
  }
  const fingerprints = new Map<string, Fingerprint>([...(current.fingerprints ?? []), ...(caches.fingerprints ?? [])]);
  const data = {
    format: "dsh-simulator-cache",
    version: 1,
    prefixes: [...prefixes].slice(-MAX_SAVED_PREFIXES),
    explicit: [...explicit],
    fingerprints: [...fingerprints].slice(-MAX_SAVED_FINGERPRINTS),
  };
  await mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, JSON.stringify(data), { mode: 0o600 });
    await rename(temp, path);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}
