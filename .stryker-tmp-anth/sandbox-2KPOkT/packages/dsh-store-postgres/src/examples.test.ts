import { apiMismatch, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";

// The example needs a PostgreSQL server: the store conformance package runs it against the one it starts.
it("shows examples/quickstart.ts verbatim in its README", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
