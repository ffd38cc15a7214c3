import { apiMismatch } from "dsh-testkit";
import { expect, it } from "vitest";

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
