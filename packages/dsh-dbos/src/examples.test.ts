import { apiMismatch, captureLog, readmeShowsExample } from "dsh-testkit";
import { startTestPostgres, type TestPostgres } from "dsh-store-conformance/postgres-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { main } from "../examples/quickstart.js";

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

it("runs the README example, which is examples/quickstart.ts verbatim", async () => {
  expect(await readmeShowsExample(new URL("../", import.meta.url))).toBe(true);
  const url = await server.createDatabase();
  const { result, lines } = await captureLog(() => main(url));
  expect(result).toBe(true);
  expect(lines).toEqual(["dsh:demo:turn:0 completed It is noon."]);
});

it("documents in its README API table exactly what src/index.ts exports", async () => {
  expect(await apiMismatch(new URL("../", import.meta.url))).toEqual({ undocumented: [], notExported: [] });
});
