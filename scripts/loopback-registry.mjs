// A private npm registry on loopback for the consumer test: Verdaccio (pinned, installed into the
// test's own directory, run on Node 22 as it requires), which serves the packages published to it
// and proxies every other package to the registry npm is configured with. dsh's packages are
// published to it from their tarballs, so a project can install them one at a time, as a user
// installs them from the public registry, with npm resolving dsh's own dependencies.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { nodeBinary, run } from "./toolchain.mjs";

const VERDACCIO = "verdaccio@6.10.4";

/** The registry npm uses here (a mirror, if one is configured), for Verdaccio to proxy to. */
function upstreamRegistry() {
  const result = spawnSync("npm", ["config", "get", "registry"], { encoding: "utf8" });
  return result.status === 0 && result.stdout.trim() !== "" ? result.stdout.trim() : "https://registry.npmjs.org/";
}

/** Waits for `url` to answer, up to a minute. */
async function answering(url, child) {
  for (let tries = 0; tries < 600; tries++) {
    if (child.exitCode !== null) throw new Error(`the loopback registry exited (${child.exitCode})`);
    try {
      const response = await fetch(`${url}-/ping`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the loopback registry did not answer within a minute");
}

/**
 * Starts the registry in `dir` on loopback (`port`, default a free one), with a user who may publish dsh's packages.
 * Returns its URL, an `.npmrc` text that points npm at it (with the user's token, for publishing),
 * and `stop`.
 */
export async function startLoopbackRegistry(dir, { port: wanted } = {}) {
  mkdirSync(dir, { recursive: true });
  run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", dir, VERDACCIO], { quiet: true });
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${join(dir, "storage")}`,
      "auth:",
      `  htpasswd: { file: ${join(dir, "htpasswd")}, max_users: 1 }`,
      "uplinks:",
      `  upstream: { url: ${JSON.stringify(upstreamRegistry())}, timeout: 60s }`,
      "packages:",
      "  'dsh-*': { access: $all, publish: $authenticated }",
      "  '**': { access: $all, proxy: upstream }",
      "log: { type: stdout, format: pretty, level: error }",
      "",
    ].join("\n"),
  );
  const port = wanted ?? (await freePort());
  const url = `http://127.0.0.1:${port}/`;
  const child = spawn(nodeBinary(22), [join(dir, "node_modules", "verdaccio", "bin", "verdaccio"), "--config", config, "--listen", `127.0.0.1:${port}`], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, NODE_NO_WARNINGS: "1" } });
  const stop = () => child.kill();
  process.on("exit", stop);
  await answering(url, child);
  // The one user (a local token, never a real credential), as `npm adduser` creates it.
  const created = await fetch(`${url}-/user/org.couchdb.user:dsh`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "dsh", password: "loopback-only" }) });
  const { token } = await created.json();
  if (typeof token !== "string") throw new Error(`the loopback registry created no user (HTTP ${created.status})`);
  const npmrc = `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`;
  return { url, npmrc, stop };
}

/** Publishes each tarball to the registry whose `.npmrc` is `npmrc`, from `dir`. */
export function publishAll(tarballs, npmrc, dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, ".npmrc"), npmrc);
  for (const tarball of tarballs) run("npm", ["publish", tarball, "--loglevel=error", "--userconfig", join(dir, ".npmrc")], { cwd: dir, quiet: true });
}

/** A TCP port nothing listens on now. */
async function freePort() {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
