#!/usr/bin/env node
// The consumer test: build and pack every public package, install the tarballs into a fresh npm
// project (nothing from the workspace), and use them as a downstream user would: import every
// package under plain Node, under vitest and from an esbuild bundle, type-check and run each README
// example, and run the `dsh` binary — on each Node line given (default 20, 22 and 24). Then publish
// them to a loopback registry and install them piecemeal from it (scripts/piecemeal-test.mjs).
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piecemealTest } from "./piecemeal-test.mjs";
import { installedVersion, nodeBinary, pnpm, root, run } from "./toolchain.mjs";

const majors = process.argv.slice(2).map(Number);
const packages = readdirSync(join(root, "packages"))
  .map((name) => ({ name, dir: join(root, "packages", name), manifest: JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) }))
  .filter(({ manifest }) => manifest.private !== true);

const work = mkdtempSync(join(tmpdir(), "dsh-consumer-"));
const packs = join(work, "packs");
const project = join(work, "project");
mkdirSync(packs);
mkdirSync(join(project, "checks"), { recursive: true });
console.log(`consumer test in ${work}`);

const { command, prefix } = pnpm();
run(command, [...prefix, "build"], { quiet: true });
for (const { dir } of packages) run(command, [...prefix, "pack", "--pack-destination", packs], { cwd: dir, quiet: true });

// A fresh npm project: the tarballs, and the tools a downstream project would bring.
writeFileSync(join(project, "package.json"), JSON.stringify({ name: "dsh-consumer", private: true, type: "module" }, null, 2));
const tools = ["zod", "vitest", "typescript", "tsx", "esbuild", "@types/node"].map((name) => `${name}@${installedVersion(name)}`);
const tarballs = readdirSync(packs).map((file) => join(packs, file));
run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...tarballs, ...tools], { cwd: project });

/** The file paths an `exports` map names (its leaves, not its subpath keys). */
const targetsOf = (exports) => (typeof exports === "string" ? [exports] : Object.values(exports).flatMap(targetsOf));

// Every path a published manifest names is in its tarball (no export condition points at sources).
for (const { name } of packages) {
  const installed = join(project, "node_modules", name);
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  const targets = [manifest.main, manifest.types, ...Object.values(manifest.bin ?? {}), ...targetsOf(manifest.exports)];
  for (const target of targets) {
    if (target !== undefined && !existsSync(join(installed, target))) throw new Error(`${name}'s published manifest names ${target}, which its tarball lacks`);
  }
  for (const file of ["README.md", "LICENSE"]) if (!existsSync(join(installed, file))) throw new Error(`${name}'s tarball lacks ${file}`);
}

// Every package (and subpath) is importable and exports what its README's API table lists as values.
const entries = packages.flatMap(({ name, manifest }) => Object.keys(manifest.exports).map((sub) => (sub === "." ? name : `${name}/${sub.slice(2)}`)));
const importCheck = `${entries.map((entry, i) => `import * as m${i} from ${JSON.stringify(entry)};`).join("\n")}
const modules = { ${entries.map((entry, i) => `${JSON.stringify(entry)}: m${i}`).join(", ")} };
for (const [entry, module] of Object.entries(modules)) {
  if (Object.keys(module).length === 0) throw new Error(\`\${entry} exports nothing\`);
}
export const loaded = Object.keys(modules).length;
`;
writeFileSync(join(project, "checks", "imports.mjs"), `${importCheck}console.log(\`imported \${loaded} entry points\`);\n`);

// Each README example, copied as a user would copy it.
const examples = packages.filter(({ dir }) => existsSync(join(dir, "examples", "quickstart.ts")));
// better-sqlite3 is a native module: npm built it here for the Node that installed it (no prebuilt
// binaries without the network), so its example runs on that Node line only.
const installMajor = process.versions.node.split(".")[0];
const NATIVE = new Set(["dsh-store-sqlite"]);

/** A PostgreSQL server for the dsh-store-postgres example (it reads DATABASE_URL); stops when this process ends. */
async function startPostgres() {
  const child = spawn(process.execPath, ["--conditions=dsh-source", "--import", "tsx", join(root, "packages", "dsh-store-conformance", "src", "serve-postgres.ts")], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("exit", (code) => reject(new Error(`the test PostgreSQL server exited (${code})`)));
  });
  child.stdout.destroy();
  return { url, stop: () => child.stdin.end() };
}
const postgres = await startPostgres();
process.on("exit", () => postgres.stop());

/**
 * An OTLP/HTTP receiver in a child process (the CLI runs synchronously here), for `dsh otel`: it
 * writes the name of every span it receives, one per line, to `file`.
 */
async function startOtlpReceiver(file) {
  const script = `import { createServer } from "node:http";
import { appendFileSync } from "node:fs";
const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk) => (body += chunk));
  request.on("end", () => {
    for (const r of JSON.parse(body).resourceSpans) for (const s of r.scopeSpans) for (const span of s.spans) appendFileSync(${JSON.stringify(file)}, span.name + "\\n");
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
process.stdin.on("end", () => server.close()).resume();`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.on("exit", (code) => reject(new Error(`the OTLP receiver exited (${code})`)));
  });
  return { url, stop: () => child.stdin.end() };
}
const spansFile = join(project, "received-spans.txt");
const otlp = await startOtlpReceiver(spansFile);
process.on("exit", () => otlp.stop());
mkdirSync(join(project, "examples"));
// Each guide's program and its keyless variant, as a reader copies them: the program as agent.ts and
// the guide's try-it.ts (which starts the simulator and imports it) in a folder of their own.
const guides = {};
for (const [name, file] of [["quick-start", "quick-start.md"], ["tamper", "tamper-evident-sessions.md"], ["durable", "durable-turns.md"], ["subagents", "subagents.md"]]) {
  const section = readFileSync(join(root, "docs", file), "utf8").split("## In your own code")[1];
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);
  const tryIt = blocks.find((block) => block.startsWith("// try-it.ts\n"));
  if (tryIt === undefined || !blocks[0].includes("process.env.DEEPSEEK_BASE_URL")) throw new Error(`docs/${file} no longer has a program that takes DEEPSEEK_BASE_URL and a try-it.ts that runs it keyless`);
  guides[name] = join(project, "guides", name);
  mkdirSync(guides[name], { recursive: true });
  writeFileSync(join(guides[name], "agent.ts"), blocks[0]);
  writeFileSync(join(guides[name], "try-it.ts"), tryIt);
}
for (const { name, dir } of examples) copyFileSync(join(dir, "examples", "quickstart.ts"), join(project, "examples", `${name}.ts`));
writeFileSync(
  join(project, "checks", "consumer.test.ts"),
  `import { expect, it } from "vitest";
import { loaded } from "./imports.mjs";

it("imports every package under vitest", () => {
  expect(loaded).toBe(${entries.length});
});

it("matches a fixture with the packed dsh-fixtures/vitest matchers", async () => {
  const { Agent, createAgentRegistry } = await import("dsh-agent");
  const { recordFixture } = await import("dsh-fixtures");
  const { installFixtureMatchers } = await import("dsh-fixtures/vitest");
  const { LlmRuntime } = await import("dsh-llm");
  const { EventLog } = await import("dsh-log");
  const { mkdtemp } = await import("node:fs/promises");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  installFixtureMatchers();
  const model = { provider: "demo", async *stream() { yield { type: "text-delta", text: "Hello!" } as const; yield { type: "finish", reason: "stop" } as const; } };
  const log = new EventLog({ registry: createAgentRegistry() });
  await new Agent({ log, runtime: new LlmRuntime({ adapters: [model] }), config: { provider: "demo", model: "m" }, systemPrompt: "Be brief." }).run("hi");
  const dir = join(await mkdtemp(join(tmpdir(), "dsh-matchers-")), "greeting");
  await recordFixture({ events: log.slice() }, dir);
  await expect(dir).toMatchFixture();
  await expect(dir).not.toMatchFixture({ systemPrompt: () => "Be kind." });
});
${examples.map(({ name }) => `
it${NATIVE.has(name) ? `.skipIf(process.versions.node.split(".")[0] !== ${JSON.stringify(installMajor)})` : ""}("runs the ${name} README example", async () => {
  const { main } = await import("../examples/${name}.js");
  await expect(main()).resolves.not.toBe(false);
});`).join("\n")}
`,
);
writeFileSync(
  join(project, "tsconfig.json"),
  JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, skipLibCheck: false, noEmit: true, types: ["node"] }, include: ["examples", "guides/*/agent.ts"] }, null, 2),
);
const local = (name) => join(project, "node_modules", ".bin", name);

console.log("\n== type-check the README examples against the installed declarations");
run(local("tsc"), ["-p", "tsconfig.json"], { cwd: project });
console.log("\n== bundle every package with esbuild");
// The stores' drivers stay external, as in any server bundle: better-sqlite3 is native, pg is CommonJS that requires Node
// built-ins; so do the MCP SDK's stdio transport (cross-spawn), the OpenTelemetry SDK and the DBOS SDK (optional
// requires resolved at run time), which dsh-mcp's, dsh-otel's and dsh-dbos's READMEs say to keep external; and
// vitest, which dsh-fixtures/vitest extends in a test run, never in a bundle.
run(local("esbuild"), ["checks/imports.mjs", "--bundle", "--platform=node", "--format=esm", "--external:better-sqlite3", "--external:pg", "--external:@modelcontextprotocol/sdk", "--external:@opentelemetry/*", "--external:@dbos-inc/*", "--external:vitest", "--outfile=bundle/imports.mjs", "--log-level=warning"], { cwd: project });

run(process.execPath, [join(project, "node_modules", "dsh-cli", "dist", "bin.js"), "keygen", "writer.pem"], { cwd: project, quiet: true });

/** The cost guide's session, for the libraries-only project to read after the loop. */
let guideSession;
for (const major of majors.length > 0 ? majors : [20, 22, 24]) {
  const node = nodeBinary(major);
  console.log(`\n== Node ${major}: plain import, bundle, vitest, README examples, the dsh binary`);
  run(node, ["checks/imports.mjs"], { cwd: project, quiet: true });
  run(node, ["bundle/imports.mjs"], { cwd: project, quiet: true });
  const env = { DATABASE_URL: postgres.url };
  run(node, [join(project, "node_modules", "vitest", "vitest.mjs"), "run", "--root", project, "checks"], { cwd: project, quiet: true, env });
  for (const { name } of examples) {
    if (NATIVE.has(name) && String(major) !== installMajor) {
      console.log(`skipping ${name}'s example on Node ${major}: its native module was built for Node ${installMajor}, which installed it`);
      continue;
    }
    run(node, ["--import", "tsx", `examples/${name}.ts`], { cwd: project, quiet: true, env });
  }
  const cli = join(project, "node_modules", "dsh-cli", "dist", "bin.js");
  // The guides' programs without a key, each through the guide's own try-it.ts; the quick start's twice, continuing its session.
  const tryIt = (name, options = {}) => run(node, ["--import", "tsx", "try-it.ts"], { cwd: guides[name], quiet: true, ...options }).stdout;
  rmSync(join(guides["quick-start"], "session.jsonl"), { force: true });
  const quick = [tryIt("quick-start"), tryIt("quick-start")];
  if (!quick.every((printed) => printed.includes("It is noon in Tokyo."))) throw new Error(`the quick start's program printed ${quick.join("")}`);
  const cache = run(node, [cli, "cache", "session.jsonl"], { cwd: guides["quick-start"], quiet: true }).stdout;
  if (!cache.includes("4 request(s)")) throw new Error(`dsh cache on the quick start's session (two runs of a tool call and an answer) does not show 4 requests:\n${cache}`);
  if (!existsSync(join(guides.tamper, "writer.pem"))) run(node, [cli, "keygen", "writer.pem"], { cwd: guides.tamper, quiet: true });
  const tampered = tryIt("tamper");
  if (!/^intact \d+$/m.test(tampered)) throw new Error(`the tamper-evident sessions guide's program printed ${tampered}`);
  rmSync(join(guides.subagents, ".dsh"), { recursive: true, force: true });
  const delegated = tryIt("subagents");
  if (!delegated.includes("Tokyo and Paris.") || !delegated.includes("true 3")) throw new Error(`the subagents guide's program printed ${delegated}`);
  const paid = tryIt("durable", { env });
  if (!paid.includes("completed Paid invoice 7.")) throw new Error(`the durable turns guide's program printed ${paid}`);
  // The installed CLI runs a durable turn on PostgreSQL, and finds nothing left to recover.
  const durableRun = run(node, [cli, "run", "--engine", "dbos", "--store", postgres.url, "What is here?"], { cwd: project, quiet: true });
  if (!/dsh: turn 0 completed \(workflow dsh:/.test(durableRun.stderr)) throw new Error(`dsh run --engine dbos printed ${durableRun.stderr}`);
  const recovered = run(node, [cli, "recover", "--engine", "dbos", "--store", postgres.url], { cwd: project, quiet: true });
  if (!recovered.stderr.includes("dsh: no pending turns")) throw new Error(`dsh recover --engine dbos printed ${recovered.stderr}`);
  console.log("the installed dsh ran a durable turn on PostgreSQL and found nothing left to recover");
  run(node, [cli, "run", "--log", `session-${major}.jsonl`, "What is here?"], { cwd: project, quiet: true });
  run(node, [cli, "requests", "--wire", `session-${major}.jsonl`], { cwd: project, quiet: true });
  // The installed CLI sends the session's spans to a real receiver (the OpenTelemetry SDK installed beside it).
  rmSync(spansFile, { force: true });
  run(node, [cli, "otel", `session-${major}.jsonl`, "--endpoint", otlp.url, "--protocol", "http/json"], { cwd: project, quiet: true });
  const names = readFileSync(spansFile, "utf8").trim().split("\n");
  if (!names.includes("invoke_agent") || !names.some((name) => name.startsWith("chat "))) throw new Error(`dsh otel sent ${names.join(", ")}`);
  console.log(`the installed dsh otel sent ${names.length} spans (${[...new Set(names)].join(", ")})`);
  // A signed session, verified against its witness, and one request proved and the proof checked, as docs/tamper-evident-sessions.md shows.
  const signing = ["--signing-key", `writer-${major}.pem`, "--witness", `witness-${major}.jsonl`];
  const checking = ["--public-key", `writer-${major}.pem.pub`, "--witness", `witness-${major}.jsonl`];
  run(node, [cli, "keygen", `writer-${major}.pem`], { cwd: project, quiet: true });
  run(node, [cli, "run", "--log", `signed-${major}.jsonl`, ...signing, "What is here?"], { cwd: project, quiet: true });
  const intact = run(node, [cli, "verify", `signed-${major}.jsonl`, ...checking], { cwd: project, quiet: true }).stdout;
  const last = JSON.parse(run(node, [cli, "requests", `signed-${major}.jsonl`], { cwd: project, quiet: true }).stdout.trim().split("\n").at(-1));
  run(node, [cli, "prove", `signed-${major}.jsonl`, "--seq", String(last.seq), "--witness", `witness-${major}.jsonl`, "-o", `proof-${major}.json`], { cwd: project, quiet: true });
  const proved = run(node, [cli, "verify-proof", `proof-${major}.json`, "--public-key", `writer-${major}.pem.pub`], { cwd: project, quiet: true }).stdout;
  if (!intact.startsWith("intact: ") || !proved.startsWith("proof verified: ")) throw new Error(`dsh verify said ${intact}, dsh verify-proof said ${proved}`);
  console.log(`the installed dsh signed a session, verified it against its witness and proved the request at seq ${last.seq}`);
  // The cost and what-if guide, as written: its shell lines with `npx dsh` as the installed binary, in a directory of their own.
  const guide = readFileSync(join(root, "docs", "cost-and-what-if.md"), "utf8");
  const lines = [...guide.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]).join("").split("\n").filter((line) => line !== "" && !line.startsWith("npm "));
  const guideDir = join(project, `cost-guide-${major}`);
  rmSync(guideDir, { recursive: true, force: true });
  mkdirSync(guideDir);
  const script = lines.map((line) => line.replaceAll("npx dsh", `"${node}" "${cli}"`)).join("\n");
  const printed = run("bash", ["-euc", script], { cwd: guideDir, quiet: true }).stdout;
  guideSession = { dir: guideDir, node, cli };
  if (!/^total: \d+ step\(s\) with usage; \d+ prompt tokens \(0 uncached, [1-9]\d* read from the cache/m.test(printed) || !printed.includes("price claude-sonnet-4-6: $3 input")) throw new Error(`the cost guide's dsh cost printed:\n${printed}`);
  if (!/^\d+ event\(s\); their tokens add up to the steps' \d+ prompt and \d+ output tokens/m.test(printed) || !/^\s+\d+ system prompt\s+\d+ /m.test(printed)) throw new Error(`the cost guide's dsh cost --by-event printed:\n${printed}`);
  if (!printed.includes('what if the system prompt "You are brief." from seq 19 on:') || !/^delta: cache reads -[1-9]\d* tokens/m.test(printed)) throw new Error(`the cost guide's dsh what-if printed:\n${printed}`);
  console.log(`the installed dsh priced the cost guide's session and answered its what-if (${/^delta: .*$/m.exec(printed)[0]})`);
  // The installed CLI on every store: a JSONL directory, a SQLite file (native: the installing Node
  // only) and the PostgreSQL server; a turn, a resume and a rebuild on each.
  const stores = [`sessions-${major}`, ...(String(major) === installMajor ? [`sqlite:sessions-${major}.db`] : []), postgres.url];
  for (const store of stores) {
    const before = new Set(run(node, [cli, "sessions", "--store", store, "--json"], { cwd: project, quiet: true }).stdout.split("\n").filter(Boolean));
    run(node, [cli, "run", "--store", store, ...signing, "What is here?"], { cwd: project, quiet: true });
    const added = run(node, [cli, "sessions", "--store", store, "--json"], { cwd: project, quiet: true }).stdout.split("\n").filter((line) => line !== "" && !before.has(line));
    if (added.length !== 1) throw new Error(`dsh run on ${store} added ${added.length} sessions, not one`);
    const id = JSON.parse(added[0]).sessionId;
    run(node, [cli, "resume", "--store", store, ...signing, id, "Anything else?"], { cwd: project, quiet: true });
    const verified = run(node, [cli, "verify", "--store", store, ...checking, id], { cwd: project, quiet: true }).stdout;
    if (!verified.startsWith("intact: ")) throw new Error(`dsh verify on ${store} said ${verified}`);
    const bodies = run(node, [cli, "requests", "--wire", "--store", store, id], { cwd: project, quiet: true }).stdout.trim().split("\n");
    if (bodies.length < 2) throw new Error(`dsh requests on ${store} rebuilt ${bodies.length} requests`);
    console.log(`the installed dsh ran, resumed, verified and rebuilt ${bodies.length} requests on ${store.startsWith("postgres") ? "PostgreSQL" : store}`);
  }
}

// Installed piecemeal, as a user installs from the public registry: every tarball published to a
// loopback registry, the quick start and each README example installing only what they name.
await piecemealTest({ work, tarballs, quickStart: readFileSync(join(root, "docs", "quick-start.md"), "utf8"), examples, env: { DATABASE_URL: postgres.url } });

// The cache regressions guide, as a reader follows it: its files written from the guide, the fixture
// recorded, the test passing, failing after the change (naming the prompt change), passing after the fix.
console.log("\n== the cache regressions guide: record a fixture, its cache floor holds, a time stamp in the prompt breaks it");
{
  const guide = readFileSync(join(root, "docs", "cache-regressions-in-ci.md"), "utf8");
  const files = new Map([...guide.matchAll(/```ts\n\/\/ file: ([^\n]+)\n([\s\S]*?)```/g)].map((match) => [match[1], match[2]]));
  const dir = join(project, "cache-guide");
  mkdirSync(dir);
  for (const name of ["agent.ts", "record-fixture.ts", "support.cache.test.ts"]) writeFileSync(join(dir, name), files.get(name));
  const vitest = () => spawnSync(process.execPath, [join(project, "node_modules", "vitest", "vitest.mjs"), "run", "--root", dir], { cwd: dir, encoding: "utf8" });
  run(process.execPath, ["--import", "tsx", "record-fixture.ts"], { cwd: dir, quiet: true });
  const kept = vitest();
  if (kept.status !== 0) throw new Error(`the guide's test failed before the change:\n${kept.stdout}${kept.stderr}`);
  writeFileSync(join(dir, "agent.ts"), files.get("agent.ts (the change)"));
  const broken = vitest();
  const said = `${broken.stdout}${broken.stderr}`;
  if (broken.status === 0 || !said.includes("cache: cache-read share 0.0% (floor 60.0%: missed)") || !/cache break at request 2 \(turn 0 step 1\): the system prompt changed: the message logged at seq 2 \(seq \d+\); its bytes differ from character \d+/.test(said)) {
    throw new Error(`the guide's test did not fail as the guide says after the change:\n${said}`);
  }
  writeFileSync(join(dir, "agent.ts"), files.get("agent.ts"));
  if (vitest().status !== 0) throw new Error("the guide's test failed after the fix");
  console.log("the guide's fixture kept its cache floor, failed it with the time in the prompt (naming the change at seq 2), and kept it again after the fix");
}

// The analysis packages on their own: a project with only their tarballs and those they depend on
// (no dsh-cli) reads the cost guide's session and computes what the installed CLI printed of it.
console.log("\n== the analysis packages without dsh-cli: cache report, cost per event and what-if of the cost guide's session");
const byName = new Map(packages.map((entry) => [entry.name, entry]));
const needed = new Set();
const need = (name) => {
  if (needed.has(name) || !byName.has(name)) return;
  needed.add(name);
  for (const dependency of Object.keys(byName.get(name).manifest.dependencies ?? {})) need(dependency);
};
for (const name of ["dsh-cache-report", "dsh-cost-report", "dsh-what-if", "dsh-anthropic", "dsh-web-store"]) need(name);
if (needed.has("dsh-cli")) throw new Error("an analysis package depends on dsh-cli");
const libraries = join(work, "libraries");
mkdirSync(libraries);
writeFileSync(join(libraries, "package.json"), JSON.stringify({ name: "dsh-analysis", private: true, type: "module" }, null, 2));
const packed = (name) => tarballs.find((file) => new RegExp(`/${name}-\\d[^/]*\\.tgz$`).test(file));
run("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", ...[...needed].map(packed)], { cwd: libraries });
if (existsSync(join(libraries, "node_modules", "dsh-cli"))) throw new Error("the analysis project has dsh-cli installed");
writeFileSync(
  join(libraries, "analysis.mjs"),
  `import { createAgentRegistry } from "dsh-agent";
import { AnthropicAdapter } from "dsh-anthropic";
import { cacheReport } from "dsh-cache-report";
import { costReport } from "dsh-cost-report";
import { FsAttachmentStore } from "dsh-attachments";
import { JsonlStore, readJsonlLog } from "dsh-log";
import { whatIf } from "dsh-what-if";
import { PagePool, sessionPage } from "dsh-web-store";
import { describeEvent } from "dsh-agent";
import { dirname, join } from "node:path";
// The session ran on the CLI's simulator of the Messages API, which it names "sim-anthropic" and prices as Claude.
const adapter = new AnthropicAdapter({ provider: "sim-anthropic", baseUrl: "http://127.0.0.1:9" });
const prices = (provider, model) => (provider === adapter.provider ? adapter.price(model) : undefined);
const { log } = await readJsonlLog(process.argv[2], createAgentRegistry());
const cache = [];
for await (const row of cacheReport(log)) cache.push(row);
const { events } = costReport(log, { prices, byEvent: true });
const report = await whatIf(log, { kind: "system", text: "You are brief." }, { at: 19, adapters: [adapter], defaultMaxSteps: 16, prices });
const timeline = log.slice().map((event) => { const { depth, text } = describeEvent(event); return \`\${String(event.seq).padStart(5)} \${"  ".repeat(depth)}\${text}\`; });
// The session's web page built in a child process, as the web guide shows, and in this one.
const dir = dirname(process.argv[2]);
const { sessionId } = (await readJsonlLog(process.argv[2], createAgentRegistry())).header;
const pages = new PagePool({ module: new URL("./open-store.mjs", import.meta.url), input: { dir } });
const store = new JsonlStore(dir);
const page = await pages.run({ kind: "session", sessionId });
const here = JSON.parse(JSON.stringify(await sessionPage(store, sessionId, { attachments: new FsAttachmentStore(join(dir, ".dsh", "objects")) })));
await pages.close();
await store.close();
console.log(JSON.stringify({ cache, events, whatIf: report, timeline, page, here }));
`,
);
writeFileSync(
  join(libraries, "open-store.mjs"),
  `import { join } from "node:path";
import { FsAttachmentStore } from "dsh-attachments";
import { JsonlStore } from "dsh-log";

export default async ({ dir }) => ({ store: new JsonlStore(dir), attachments: new FsAttachmentStore(join(dir, ".dsh", "objects")) });
`,
);
{
  const { dir, node, cli } = guideSession;
  const session = join(dir, "session.jsonl");
  const ours = JSON.parse(run(node, ["analysis.mjs", session], { cwd: libraries, quiet: true }).stdout);
  const cliCache = run(node, [cli, "cache", session, "--json"], { cwd: dir, quiet: true }).stdout.trim().split("\n").map((line) => JSON.parse(line));
  const cliEvents = JSON.parse(run(node, [cli, "cost", session, "--by-event", "--json"], { cwd: dir, quiet: true }).stdout).events.map(({ costUsd: _usd, ...event }) => event);
  const cliWhatIf = JSON.parse(run(node, [cli, "what-if", session, "--at", "19", "--system", "You are brief.", "--json"], { cwd: dir, quiet: true }).stdout);
  const same = (what, a, b) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`the libraries' ${what} differs from the CLI's:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  };
  same("cache report", ours.cache, cliCache);
  same("cost per event", ours.events, cliEvents);
  same("what-if", ours.whatIf, cliWhatIf);
  same("timeline", ours.timeline, run(node, [cli, "inspect", session], { cwd: dir, quiet: true }).stdout.trimEnd().split("\n").slice(1));
  same("web page built in a child process", ours.page, ours.here);
  console.log(`without dsh-cli (${needed.size} packages), the libraries computed what the CLI printed: ${ours.cache.length} cache rows, ${ours.events.length} events priced, a what-if of ${ours.whatIf.whatIf.requests.length} requests, the timeline of ${ours.timeline.length} events; a PagePool built its page of ${ours.page.requests.length} requests`);
}
console.log("\nconsumer test passed");
// The server's child process would keep this one alive: stop it and end here.
postgres.stop();
otlp.stop();
process.exit(0);
