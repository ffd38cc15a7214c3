import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toBe(true);
  expect(lines.at(-1)).toMatch(/^session: 3 steps, \$0\.\d{6}$/);
  expect(lines.slice(0, -1).map((line) => /^seq \d+ ([^:]+):/.exec(line)?.[1])).toEqual(["system prompt", "user", "tools (1)", "assistant", "tool result read", "assistant", "user", "assistant"]);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
