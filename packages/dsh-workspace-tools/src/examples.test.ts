import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
  expect(result).toBe(true);
  expect(lines).toEqual([".env\nnotes.txt", "Error [TOOL_DENIED]: .env is a credentials file: dsh keeps it out of the model's reach"]);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
