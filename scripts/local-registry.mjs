#!/usr/bin/env node
// `npm run local-registry [-- --port N]`: builds and packs every package, publishes them to a
// registry on loopback (default port 4873) that proxies every other package to npm's, and keeps it
// running until Ctrl-C, so another project can `npm install dsh-agent …` before the packages are on
// the public registry. The registry's files live in .dsh-registry/ (a fresh one each start).
import { mkdirSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { publishAll, startLoopbackRegistry } from "./loopback-registry.mjs";
import { ensureDependencies, pnpm, root, run } from "./toolchain.mjs";

const { values } = parseArgs({ options: { port: { type: "string", default: "4873" } } });
ensureDependencies();
const dir = join(root, ".dsh-registry");
rmSync(dir, { recursive: true, force: true });
const packs = join(dir, "packs");
mkdirSync(packs, { recursive: true });
const { command, prefix } = pnpm();
console.log("building and packing every package …");
run(command, [...prefix, "build"], { quiet: true });
const published = readdirSync(join(root, "packages")).filter((name) => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).private !== true);
for (const name of published) run(command, [...prefix, "pack", "--pack-destination", packs], { cwd: join(root, "packages", name), quiet: true });
const registry = await startLoopbackRegistry(join(dir, "registry"), { port: Number(values.port) });
const tarballs = readdirSync(packs).map((file) => join(packs, file));
publishAll(tarballs, registry.npmrc, join(dir, "publish"));
console.log(`\n${tarballs.length} packages published to ${registry.url}; other packages come through it from npm's registry.`);
console.log(`In your project:  echo "registry=${registry.url}" > .npmrc   (then npm install dsh-agent …)`);
console.log("Ctrl-C stops it.");
process.on("SIGINT", () => process.exit(0));
setInterval(() => undefined, 1 << 30);
