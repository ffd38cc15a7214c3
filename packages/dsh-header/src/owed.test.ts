import { describe, expect, it } from "vitest";
import type { EpochHeader } from "./header.js";
import { owedHeaderSnapshot, type HeaderDecision } from "./owed.js";

const a: EpochHeader = { config: { provider: "p", model: "a" } };
const b: EpochHeader = { config: { provider: "p", model: "b" } };
const base: HeaderDecision = { latest: a, writtenByThisInstance: true, next: a, startsRequestSeries: false, followsReplace: false };

describe("owedHeaderSnapshot", () => {
  it.each<[string, Partial<HeaderDecision>, ReturnType<typeof owedHeaderSnapshot>]>([
    ["the first instance's first request", { latest: undefined, writtenByThisInstance: false }, { reason: "initial" }],
    ["a later instance's first request, even unchanged", { writtenByThisInstance: false }, { reason: "resume" }],
    ["a later instance's first request with drift", { writtenByThisInstance: false, next: b }, { reason: "resume" }],
    ["an in-instance change", { next: b }, { reason: "change" }],
    ["a change that starts a series", { next: b, startsRequestSeries: true }, { reason: "change", startsSeries: true }],
    ["a change after a replace", { next: b, followsReplace: true }, { reason: "change", startsSeries: true }],
    ["an unchanged step that starts a series", { startsRequestSeries: true }, { reason: "series" }],
    ["an unchanged step after a replace", { followsReplace: true }, { reason: "series" }],
    ["a plain follow-up, a later step or a retry", {}, undefined],
  ])("%s", (_what, change, expected) => {
    expect(owedHeaderSnapshot({ ...base, ...change })).toEqual(expected);
  });
});
