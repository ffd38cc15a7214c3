import { DshError, describeIssues } from "dsh-base";
import type { z } from "zod";

/** Stable codes of every error the fixture package throws. */
export type FixtureErrorCode =
  /** The directory is not a fixture, or its manifest, sidecars or log are unreadable or inconsistent. */
  | "FIXTURE_INVALID"
  /** The log holds something a keyless replay cannot reproduce (an aborted turn, an accepted quarantine). */
  | "FIXTURE_UNREPLAYABLE"
  /** `record` was asked to write into a directory that already holds files. */
  | "FIXTURE_EXISTS"
  /** `assertFixture`: the current code, prompt or tools produce a different session than the fixture records. */
  | "FIXTURE_MISMATCH"
  /** Cache limits were asked of a fixture whose requests name no API whose cache dsh models (no wire profile, an unknown provider). */
  | "FIXTURE_CACHE_UNMODELLED";

/** A fixture failure with a stable code and one line saying what and where. */
export class FixtureError extends DshError<FixtureErrorCode> {
  override name = "FixtureError";
}

/** `text` parsed as JSON and validated by `schema`; anything else is `FIXTURE_INVALID` naming `where` and the first problem. */
export function parseFixtureJson<Schema extends z.ZodType>(schema: Schema, text: string, where: string): z.output<Schema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new FixtureError("FIXTURE_INVALID", `${where} is not JSON: ${(cause as Error).message}`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new FixtureError("FIXTURE_INVALID", `${where}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}
