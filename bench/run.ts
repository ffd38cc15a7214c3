// `pnpm bench`: measures the claims of docs/performance.md as ratios within one run, prints a table
// and writes bench/results.json. Options: --quick (smaller sizes, for a smoke run).
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { appendBench } from "./append.js";
import { buildCost } from "./build-cost.js";
import { cacheRatioBench } from "./cache-ratio.js";
import type { ReconstructResult } from "./reconstruct.js";
import { fmt, table } from "./util.js";

const quick = process.argv.includes("--quick");
const dir = await mkdtemp(join(tmpdir(), "dsh-bench-"));
const here = fileURLToPath(new URL(".", import.meta.url));

try {
  console.log(`dsh bench${quick ? " (quick)" : ""} on Node ${process.version}, ${cpus().length} cores\n`);

  const build = await buildCost([10, 100, 1000, 10_000], quick ? 10 : 40);
  console.log("1. Request build cost per step, by prior steps (median ms)");
  console.log(
    table([
      ["prior steps", "loop build", "array copy", "naive rebuild", "naive / loop"],
      ...build.rows.map((row) => [String(row.priorSteps), fmt(row.incrementalMs), fmt(row.arrayCopyMs), fmt(row.naiveMs), fmt(row.naiveMs / row.incrementalMs)]),
    ]),
  );
  console.log(`   step-10,000 / step-100: loop ${fmt(build.ratio.incremental)}×, naive ${fmt(build.ratio.naive)}×\n`);

  const steps = quick ? 200 : 1000;
  const progress = 95;
  const child = (...args: string[]) =>
    execFileSync(process.execPath, ["--conditions=dsh-source", "--import", "tsx", join(here, "reconstruct.ts"), ...args], { encoding: "utf8", maxBuffer: 1 << 20 });
  child("--write", dir, String(steps), String(progress));
  const output = child("--read", dir);
  const reconstruct = JSON.parse(output) as ReconstructResult;
  console.log(`2. Reconstruction of a ${steps}-step log from JSONL (load + fold + wire serialization)`);
  console.log(
    table([
      ["events", "requests", "log MB", "wire MB", "load ms", "fold ms", "wire ms", "events/s", "peak RSS growth / log size"],
      [
        String(reconstruct.events),
        String(reconstruct.requests),
        fmt(reconstruct.logBytes / 1e6),
        fmt(reconstruct.wireBytes / 1e6),
        fmt(reconstruct.loadMs),
        fmt(reconstruct.foldMs),
        fmt(reconstruct.serializeMs),
        fmt(reconstruct.eventsPerSecond),
        fmt(reconstruct.peakGrowthOverLogSize),
      ],
    ]),
  );
  console.log(`   (had each request cloned its messages, it would hold ${fmt(reconstruct.wireBytes / reconstruct.logBytes)}× the log size in wire JSON alone)\n`);

  const append = await appendBench(dir, quick ? 300 : 2000);
  console.log("3. Durable append to JSONL (fsync before acknowledging)");
  console.log(
    table([
      ["mode", "events/s", "ack median ms", "ack p99 ms"],
      ["one fsync per event", fmt(append.perEvent.eventsPerSecond), fmt(append.perEvent.ackMedianMs), fmt(append.perEvent.ackP99Ms)],
      [`group commit, ${append.concurrency} writers`, fmt(append.grouped.eventsPerSecond), fmt(append.grouped.ackMedianMs), fmt(append.grouped.ackP99Ms)],
    ]),
  );
  console.log(`   group commit / per event: ${fmt(append.speedup)}×\n`);

  const cache = await cacheRatioBench(dir, quick ? 5 : 20);
  console.log(`4. Prefix-cache hit ratio, ${cache.requests}-step session with tools through the simulator`);
  console.log(
    table([
      ["prompt tokens", "cache read", "hit ratio", "physical limit", "limit ratio", "in 64-token units", "logged breaks", "shortfalls"],
      [
        String(cache.promptTokens),
        String(cache.cacheReadTokens),
        fmt(cache.hitRatio),
        String(cache.physicalLimitTokens),
        fmt(cache.limitRatio),
        String(cache.unitLimitTokens),
        String(cache.breaks),
        String(cache.shortfalls),
      ],
    ]),
  );

  const results = { date: new Date().toISOString(), node: process.version, cores: cpus().length, quick, buildCost: build, reconstruct, append, cache };
  await writeFile(join(here, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${join("bench", "results.json")}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
