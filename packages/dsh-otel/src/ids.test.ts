import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { spanIdOf, traceIdOf, validId } from "./ids.js";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("ids", () => {
  it("are the leading hex digits of sha256 over the session and the seq, apart for traces and spans", () => {
    expect(traceIdOf("s1", 7)).toBe(sha("dsh trace\0s1\x007").slice(0, 32));
    expect(spanIdOf("s1", 7)).toBe(sha("dsh span\0s1\x007").slice(0, 16));
    expect(spanIdOf("s1", 7)).not.toBe(traceIdOf("s1", 7).slice(0, 16));
    expect(spanIdOf("s1", 17)).not.toBe(spanIdOf("s11", 7));
  });

  it("never gives the all-zero id OpenTelemetry refuses", () => {
    expect(validId("0000000000000000")).toBe("0000000000000001");
    expect(validId("0000000000000010")).toBe("0000000000000010");
    expect(validId("1000000000000000")).toBe("1000000000000000");
    expect(validId("00")).toBe("01");
  });
});
