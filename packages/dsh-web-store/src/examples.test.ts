import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toEqual(lines);
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatch(/^request 1: 0 of \d+ prompt tokens read from the cache$/);
  expect(lines[1]).toMatch(/^request 2: [1-9]\d* of \d+ prompt tokens read from the cache$/);
  expect(lines[2]).toMatch(/^request 3: 0 of \d+ prompt tokens read from the cache; break: the system prompt changed/);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
