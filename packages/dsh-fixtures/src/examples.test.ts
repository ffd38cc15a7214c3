import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toBe(true);
  expect(lines[0]).toBe("fixture greeting: unchanged (2 requests)");
  expect(lines[1]!.split("\n")).toEqual([
    "fixture greeting: 2 of 2 requests differ, 1 log event differs",
    "request 1 (turn 0 step 0, dispatched at seq 5):",
    "  node 0 (system prompt) replaced:",
    "    - Be brief.",
    "    + Be brief and kind.",
    "  cache: the prompt differs from node 0 (the system prompt): nothing after the tools is read from a cache the recorded requests warmed",
  ]);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});

it("documents in its README's dsh-fixtures/vitest table exactly what src/vitest.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url), "vitest", "API of dsh-fixtures/vitest")).toEqual({ undocumented: [], notExported: [] });
});
