import { describe, expect, it } from "vitest";
import type { EpochHeader } from "./header.js";
import { owedHeaderEvent, owedHeaderSnapshot, type HeaderDecision, type HeaderStep } from "./owed.js";

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
    ["a snapshot this instance wrote that the log lacks", { latest: undefined }, { reason: "change" }],
  ])("%s", (_what, change, expected) => {
    expect(owedHeaderSnapshot({ ...base, ...change })).toEqual(expected);
  });
});

describe("owedHeaderEvent", () => {
  const tool = { name: "t", description: "", parameters: {} };
  const step: HeaderStep = {
    latest: undefined,
    writtenByThisInstance: false,
    selection: { provider: "p", model: "a" },
    modelDefaults: { maxTokens: 100 },
    tools: [tool],
    startsRequestSeries: false,
    followsReplace: false,
  };

  it("returns the owed snapshot as an event ready to append, built with adapter-default provenance", () => {
    expect(owedHeaderEvent(step)).toEqual({
      type: "request/header",
      data: { reason: "initial", header: { config: { provider: "p", model: "a", maxTokens: 100 }, tools: [tool], adapterDefaults: { maxTokens: 100 } } },
    });
  });

  it("compares the built header, defaults included, with the latest snapshot", () => {
    const latest = owedHeaderEvent(step)!.data;
    const later = { ...step, latest, writtenByThisInstance: true };
    expect(owedHeaderEvent(later)).toBeUndefined();
    expect(owedHeaderEvent({ ...later, tools: [] })?.data).toEqual({ reason: "change", header: { config: latest.header.config, adapterDefaults: { maxTokens: 100 } } });
    expect(owedHeaderEvent({ ...later, modelDefaults: { maxTokens: 200 } })?.data.reason).toBe("change");
    expect(owedHeaderEvent({ ...later, followsReplace: true })?.data).toEqual({ reason: "series", header: latest.header });
  });

  it("logs the adapter's wire profile in the header (none when empty), and a different profile is a change", () => {
    const wire = { api: "chat-completions", dialect: "deepseek" };
    const first = owedHeaderEvent({ ...step, wire })!.data;
    expect(first.header.wire).toEqual(wire);
    expect(owedHeaderEvent({ ...step, wire: {} })!.data.header).not.toHaveProperty("wire");
    const later = { ...step, latest: first, writtenByThisInstance: true };
    expect(owedHeaderEvent({ ...later, wire: { ...wire } })).toBeUndefined();
    expect(owedHeaderEvent({ ...later, wire: { ...wire, dialect: "openai" } })?.data).toMatchObject({ reason: "change", header: { wire: { dialect: "openai" } } });
    expect(owedHeaderEvent({ ...later, wire: undefined })?.data.reason).toBe("change");
  });
});
