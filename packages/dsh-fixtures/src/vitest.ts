import { expect } from "vitest";
import type { CacheLimits } from "./cache-floor.js";
import { checkFixture, type FixtureReplayOptions } from "./check.js";
import { formatFixtureReport } from "./report.js";

/** What a matcher returns to vitest. */
interface MatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** A fixture's directory, or a refusal vitest shows. */
function fixtureDirOf(received: unknown): string {
  if (typeof received !== "string" || received === "") throw new TypeError(`expected the directory of a dsh fixture, got ${typeof received === "string" ? "an empty string" : typeof received}`);
  return received;
}

/** The fixture matchers, for `expect.extend`. Each replays the fixture keyless, as `checkFixture` does. */
const fixtureMatchers = {
  /** Passes when the fixture in the directory replays to the requests it records (and keeps `limits`, when given). */
  async toMatchFixture(received: unknown, options: FixtureReplayOptions = {}, limits: CacheLimits = {}): Promise<MatcherResult> {
    const report = await checkFixture(fixtureDirOf(received), options, limits);
    return { pass: report.ok, message: () => (report.ok ? `expected fixture ${report.name} to differ from the replay, and it did not` : formatFixtureReport(report)) };
  },
  /** Passes when the fixture's replay reads at least `floor` of its prompt tokens from the modelled provider cache, whatever else changed. */
  async toKeepCacheFloor(received: unknown, floor: number, options: FixtureReplayOptions = {}): Promise<MatcherResult> {
    const report = await checkFixture(fixtureDirOf(received), options, { cacheFloor: floor });
    const share = report.cache!.share;
    const kept = report.cache!.ok;
    return { pass: kept, message: () => (kept ? `expected fixture ${report.name} to read less than ${floor} from the cache, and it read ${share}` : formatFixtureReport(report)) };
  },
};

/** Installs the fixture matchers on vitest's `expect`: call it once, in a setup file or at the top of a test file. */
function installFixtureMatchers(): void {
  expect.extend(fixtureMatchers);
}

export { fixtureMatchers, installFixtureMatchers };

declare module "vitest" {
  interface Assertion<T> {
    /** The fixture in this directory replays to the requests it records (and keeps the cache `limits`, when given). */
    toMatchFixture(options?: FixtureReplayOptions, limits?: CacheLimits): Promise<T>;
    /** The fixture's replay reads at least `floor` (0 to 1) of its prompt tokens from the modelled provider cache. */
    toKeepCacheFloor(floor: number, options?: FixtureReplayOptions): Promise<T>;
  }
}
