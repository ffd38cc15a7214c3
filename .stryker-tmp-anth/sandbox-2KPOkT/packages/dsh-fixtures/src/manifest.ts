import { headerReasonSchema } from "dsh-header";
import { z } from "zod";
import { FixtureError, parseFixtureJson } from "./errors.js";

/** The format name written in every fixture manifest. */
export const FIXTURE_FORMAT = "dsh-fixture";
/** The manifest version this code reads and writes. */
export const FIXTURE_VERSION = 1;

const positive = z.number().int().positive();
const trimSchema = z.strictObject({ maxChars: positive.exactOptional(), keepRecent: positive.exactOptional() });

/** The agent settings the session ran with: they are not in the log, and a replay needs them to decide the same way. */
export const fixtureAgentSchema = z.strictObject({
  maxSteps: positive.exactOptional(),
  compaction: z
    .strictObject({
      contextWindow: positive,
      threshold: z.number().gt(0).lte(1).exactOptional(),
      keepRecent: positive.exactOptional(),
      summaryMaxTokens: positive.exactOptional(),
      summaryModel: z.strictObject({ provider: z.string().min(1), model: z.string().min(1) }).exactOptional(),
      trim: trimSchema.exactOptional(),
    })
    .exactOptional(),
  /** The options of trims run between turns (`agent.trimToolResults`). */
  trim: trimSchema.exactOptional(),
  /** The retry policy, when not the agent's default: recorded retries are replayed with it. */
  retry: z
    .strictObject({ maxRetries: z.number().int().nonnegative(), baseDelayMs: z.number().int().nonnegative(), maxDelayMs: z.number().int().nonnegative() })
    .exactOptional(),
});
export type FixtureAgentSettings = z.output<typeof fixtureAgentSchema>;

const REVISION_ID = /^r[1-9][0-9]*$/;

/** One pinned prompt-and-tools revision; its sidecars are `prompts/<id>.txt` and `tools/<id>.json`. */
export const revisionRefSchema = z.strictObject({ id: z.string().regex(REVISION_ID, "revision ids are r1, r2, ...") });

/** A header snapshot of the replayed part of the log and the revision its requests use. */
export const headerRefSchema = z.strictObject({
  seq: z.number().int().nonnegative(),
  reason: headerReasonSchema,
  revision: z.string().regex(REVISION_ID),
});
export type HeaderRef = z.output<typeof headerRefSchema>;

/** `fixture.json`: what the directory holds and how to replay it. */
export const fixtureManifestSchema = z.strictObject({
  format: z.literal(FIXTURE_FORMAT),
  version: z.literal(FIXTURE_VERSION),
  name: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/).refine((name) => !name.includes(".."), "no '..' in a fixture name"),
  /** `recorded`: tool results are served from the log; `real`: the tools run in `workdir`. */
  tools: z.enum(["recorded", "real"]),
  /** For `real` tools: the working directory, relative to the fixture directory. */
  workdir: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, "workdir is a relative path inside the fixture")
    .refine((path) => !path.split("/").includes(".."), "workdir is a relative path inside the fixture")
    .exactOptional(),
  agent: fixtureAgentSchema,
  revisions: z.array(revisionRefSchema),
  headers: z.array(headerRefSchema),
});
export type FixtureManifest = z.output<typeof fixtureManifestSchema>;

/** Parses a manifest's text; anything else is `FIXTURE_INVALID` naming the first problem. */
export function parseManifest(text: string, where: string): FixtureManifest {
  const manifest = parseFixtureJson(fixtureManifestSchema, text, where);
  if (manifest.tools === "real" && manifest.workdir === undefined) throw new FixtureError("FIXTURE_INVALID", `${where}: real tools need a workdir`);
  const ids = new Set(manifest.revisions.map((revision) => revision.id));
  const unknown = manifest.headers.find((header) => !ids.has(header.revision));
  if (unknown !== undefined) throw new FixtureError("FIXTURE_INVALID", `${where}: header at seq ${unknown.seq} names revision ${unknown.revision}, which is not listed`);
  return manifest;
}

/** The manifest as written: two-space JSON with a final newline, keys in schema order. */
export function serializeManifest(manifest: FixtureManifest): string {
  const { format, version, name, tools, workdir, agent, revisions, headers } = manifest;
  return `${JSON.stringify({ format, version, name, tools, ...(workdir === undefined ? {} : { workdir }), agent, revisions, headers }, null, 2)}\n`;
}
