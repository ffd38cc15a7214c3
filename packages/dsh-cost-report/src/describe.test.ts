import { describe, expect, it } from "vitest";
import { describeForecast, formatUsd } from "./describe.js";

describe("formatUsd", () => {
  it("writes cents from a dollar up, up to six decimals below, and says when there is no price", () => {
    expect([1, 12.345, 0.5, 0.0000125, 0.1234567, 0, undefined].map(formatUsd)).toEqual(["$1.00", "$12.35", "$0.5", "$0.000013", "$0.123457", "$0.0", "no price"]);
  });
});

describe("describeForecast", () => {
  const plans = [
    { plan: "now" as const, forecastUsd: 0.25, requests: 40 },
    { plan: "never" as const, forecastUsd: 0.5, requests: 40 },
  ];
  it("names the choice, each plan's forecast over its horizon, and the forecast against what the requests that followed cost", () => {
    expect(describeForecast({ seq: 12, choice: "now", plans, requests: 3, forecastUsd: 0.03, actualUsd: 0.0275, compacted: true })).toBe(
      "compaction forecast at seq 12: chose now (now $0.25, never $0.5 over 40 request(s)); over the 3 request(s) that followed, compaction included: forecast $0.03, actual $0.0275",
    );
    expect(describeForecast({ seq: 12, choice: "never", plans, requests: 2, forecastUsd: 0.02, actualUsd: undefined, compacted: false })).toBe(
      "compaction forecast at seq 12: chose never (now $0.25, never $0.5 over 40 request(s)); over the 2 request(s) that followed: forecast $0.02, actual no price",
    );
  });

  it("says so when no request followed yet, and a horizon of 0 without plans", () => {
    expect(describeForecast({ seq: 3, choice: "now", plans: [], requests: 0, forecastUsd: 0, actualUsd: 0, compacted: false })).toBe("compaction forecast at seq 3: chose now ( over 0 request(s)); no request followed yet");
  });
});
