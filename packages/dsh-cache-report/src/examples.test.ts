import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toEqual(["request 2.0: the system prompt changed: the message logged at seq 2 (seq 18)"]);
  expect(lines[0]).toMatch(/^3 requests, 1 break\(s\), cache-read share \d+\.\d%$/);
  expect(lines.slice(1)).toEqual(result);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
