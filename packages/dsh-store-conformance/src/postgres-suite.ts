import { afterAll, beforeAll } from "vitest";
import { startTestPostgres, type TestPostgres } from "./postgres-server.js";

/**
 * A real PostgreSQL server for the calling test file: started before its tests (it may take a while
 * the first time, while its binaries are copied into place) and stopped after them. Each test asks
 * it for a fresh database.
 */
export function testPostgres(): Pick<TestPostgres, "createDatabase"> {
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    server = await startTestPostgres();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return { createDatabase: () => server!.createDatabase() };
}
