import { describe, expect, it } from "vitest";
import { catalogEntry, type CatalogTables } from "./catalog.js";

const catalog: CatalogTables<{ readonly window: number }> = {
  models: { now: { window: 8 } },
  retired: { old: { replacement: "now", retiredAt: "2026-07-24T15:59:00Z" } },
};

describe("catalogEntry", () => {
  it("returns a known model's info and nothing for an unknown name, inherited keys included", () => {
    expect(catalogEntry("acme", catalog, "now")).toEqual({ window: 8 });
    expect(catalogEntry("acme", catalog, "later")).toBeUndefined();
    expect(catalogEntry("acme", catalog, "toString")).toBeUndefined();
    expect(catalogEntry("acme", catalog, "constructor")).toBeUndefined();
  });

  it("refuses a retired name in one line naming the provider, the day and the replacement, not retryable", () => {
    expect(() => catalogEntry("acme", catalog, "old")).toThrow(expect.objectContaining({ code: "LLM_MODEL_RETIRED", retryable: false, message: "acme retired old on 2026-07-24: use now" }));
  });
});
