import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toBeLessThan(0);
  expect(lines[0]).toMatch(/^the system prompt "Today is Thu Jan 01 1970\. You read logs\.": 2 request\(s\) change, cache reads -\d+ tokens, cost \+\$0\.\d{6}$/);
  expect(lines.slice(1)).toEqual([expect.stringMatching(/^break at 1\.0 \(whatIf\): the system prompt changed: the message logged at seq 2 \(seq \d+\)$/)]);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
