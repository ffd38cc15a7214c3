import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const { result, lines } = await captureLog(main);
    expect(result).toBe(1);
    expect(lines[1]).toMatch(/^note\/added: .*expected string, received number/s);
    expect(JSON.parse(lines[2]!)).toMatchObject({ line: 3, bytes: 24 });
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});

it("documents in its README's store-builder table exactly what dsh-log/store exports", async () => {
  const mismatch = await apiMismatch(new URL("../", import.meta.url), "for-stores", "For store builders: `dsh-log/store`");
  expect(mismatch).toEqual({ undocumented: [], notExported: [] });
});
