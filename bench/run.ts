// `pnpm bench`: measures the claims of docs/performance.md as ratios within one run, prints tables
// and writes bench/results.json. Options: --quick (smaller sizes, for a smoke run).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AdapterSerializeRow } from "./adapter-serialize.js";
import type { AppendResult } from "./append.js";
import { analysisBench } from "./analysis.js";
import { anthropicCacheBench } from "./anthropic-cache.js";
import { buildCost } from "./build-cost.js";
import { cacheRatioBench } from "./cache-ratio.js";
import type { GcCliffResult } from "./gc-cliff.js";
import { loadBench } from "./load.js";
import { responsesCacheBench } from "./responses-cache.js";
import { geminiCacheBench } from "./gemini-cache.js";
import { storesBench } from "./stores.js";
import { sqliteWritersBench } from "./sqlite-writers.js";
import { wideAnswerBench } from "./wide-answer.js";
import type { AiSdkRow } from "./peer-ai-sdk.js";
import type { LangGraphRow } from "./peer-langgraph.js";
import type { PiLoadResult } from "./peer-pi.js";
import type { ReconstructResult } from "./reconstruct.js";
import { fmt, table } from "./util.js";

const quick = process.argv.includes("--quick");
const dir = await mkdtemp(join(tmpdir(), "dsh-bench-"));
const here = fileURLToPath(new URL(".", import.meta.url));
const run = (script: string, ...args: string[]) =>
  execFileSync(process.execPath, ["--expose-gc", "--conditions=dsh-source", "--import", "tsx", join(here, script), ...args], { encoding: "utf8", maxBuffer: 1 << 20 });
const child = (...args: string[]) => run("reconstruct.ts", ...args);
/** The version of a peer library the bench installed. */
const peerVersion = (name: string) => (JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

try {
  console.log(`dsh bench${quick ? " (quick)" : ""} on Node ${process.version}, ${cpus().length} cores\n`);

  console.log("1. Load with full admission, and load + the model-visible messages, against read + split + JSON.parse of the same file (medians)");
  const loads = [];
  // Two kinds of log: 95 opaque progress events per step (a harness streaming UI progress into the
  // log), and model-visible events only (the realistic case for a resumed session's messages).
  const sizes: readonly (readonly [number, number])[] = quick ? [[1000, 95], [2000, 0]] : [[1000, 95], [10_000, 95], [5000, 0], [50_000, 0]];
  for (const [steps, progress] of sizes) {
    const name = `load-${steps}-${progress}.jsonl`;
    child("--write", dir, String(steps), String(progress), name);
    loads.push({ progress, ...(await loadBench(join(dir, name), quick ? 5 : steps * (progress + 6) > 100_000 ? 5 : 15)) });
  }
  console.log(
    table([
      ["events", "progress", "log MB", "floor ms", "load ms", "load / floor", "load + messages / floor", "heap kept / log", "peak RSS / log", "warm peak RSS / log", "floor peak RSS / log"],
      ...loads.map((row) => [String(row.events), row.progress > 0 ? "95 %" : "none", fmt(row.logBytes / 1e6), fmt(row.floorMs), fmt(row.loadMs), fmt(row.ratio), fmt(row.deriveRatio), fmt(row.heapKeptOverLogSize), fmt(row.peakRssOverLogSize), fmt(row.warmPeakRssOverLogSize), fmt(row.floorPeakRssOverLogSize)]),
    ]),
  );

  // pi runs on Node 22 (its dependencies need it): both libraries are measured in one Node 22 process.
  const node22 = execFileSync("npx", ["-y", "node@22", "-p", "process.execPath"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  // A small session (27 messages) too, opened 100 times in a row per measurement as a server opening many would be.
  const piRounds = (steps: number) => (quick ? "4" : steps < 100 ? "20" : steps < 10_000 ? "16" : "10");
  const piRows = (quick ? [12, 1000] : [12, 4762, 47_619]).map(
    (steps) => JSON.parse(execFileSync(node22, ["--expose-gc", "--conditions=dsh-source", "--import", "tsx", join(here, "peer-pi.ts"), dir, String(steps), piRounds(steps)], { encoding: "utf8", maxBuffer: 1 << 20 })) as PiLoadResult,
  );
  console.log(`\n1b. Opening a session to continue it, against pi ${peerVersion("@mariozechner/pi-coding-agent")} on Node 22: the same conversation written through each library's API (medians, interleaved rounds)`);
  console.log(
    table([
      ["steps", "pi messages", "dsh messages", "pi ms", "dsh ms", "dsh / pi", "pi floor ms", "dsh floor ms", "dsh open to append ms", "that / pi"],
      ...piRows.map((row) => [
        String(row.steps),
        String(row.piMessages),
        String(row.dshMessages),
        fmt(row.piMs),
        fmt(row.dshMs),
        fmt(row.ratio),
        fmt(row.piFloorMs),
        fmt(row.dshFloorMs),
        fmt(row.dshWritableMs),
        fmt(row.writableRatio),
      ]),
    ]),
  );
  console.log("   Memory of one open in a fresh process (medians of five): heap kept after a collection with the session held, and peak RSS growth; then the heap a second open of the same session keeps beside the first");
  console.log(
    table([
      ["steps", "pi heap MB", "dsh heap MB", "heap dsh / pi", "pi peak RSS MB", "dsh peak RSS MB", "peak RSS dsh / pi", "second open: pi heap MB", "dsh heap MB", "dsh / pi"],
      ...piRows.flatMap(({ steps, memory: m }) =>
        m === undefined
          ? []
          : [
              [
                String(steps),
                fmt(m.piHeapKept / 1e6),
                fmt(m.dshHeapKept / 1e6),
                fmt(m.dshHeapKept / m.piHeapKept),
                fmt(m.piPeakRss / 1e6),
                fmt(m.dshPeakRss / 1e6),
                fmt(m.dshPeakRss / m.piPeakRss),
                fmt(m.piSecondHeapKept / 1e6),
                fmt(m.dshSecondHeapKept / 1e6),
                fmt(m.dshSecondHeapKept / m.piSecondHeapKept),
              ],
            ],
      ),
    ]),
  );

  const build = await buildCost([10, 100, 1000, 10_000], quick ? 10 : 40);
  console.log("\n2. Request build cost per step, by prior steps (median ms)");
  console.log(
    table([
      ["prior steps", "loop build", "array copy", "build / copy", "naive rebuild", "naive / loop"],
      ...build.rows.map((row) => [String(row.priorSteps), fmt(row.incrementalMs), fmt(row.arrayCopyMs), fmt(row.incrementalMs / row.arrayCopyMs), fmt(row.naiveMs), fmt(row.naiveMs / row.incrementalMs)]),
    ]),
  );

  const aiSdk = JSON.parse(
    execFileSync(node22, ["--expose-gc", "--conditions=dsh-source", "--import", "tsx", join(here, "peer-ai-sdk.ts"), quick ? "10,1000" : "10,100,1000,10000", quick ? "10" : "40"], { encoding: "utf8", maxBuffer: 1 << 20 }),
  ) as AiSdkRow[];
  console.log(`\n2b. One step, from the new user message to the request's bytes handed to fetch, against the AI SDK ${peerVersion("ai")} (streamText over @ai-sdk/openai-compatible) on Node 22 (medians, interleaved)`);
  console.log(
    table([
      ["prior messages", "AI SDK ms", "dsh ms", "AI SDK / dsh"],
      ...aiSdk.map((row) => [String(row.priorMessages), fmt(row.aiSdkMs), fmt(row.dshMs), fmt(row.ratio)]),
    ]),
  );

  const steps = quick ? 200 : 1000;
  child("--write", dir, String(steps), "95");
  const reconstruct = JSON.parse(child("--read", dir)) as ReconstructResult;
  console.log(`\n3. Rebuild of a ${steps}-step log: load, fold and wire serialization of every request, streamed`);
  console.log(
    table([
      ["events", "requests", "log MB", "wire MB", "load ms", "rebuild ms", "serialize ms", "plain serialize ms", "plain / fast", "identical", "peak RSS growth / log"],
      [
        String(reconstruct.events),
        String(reconstruct.requests),
        fmt(reconstruct.logBytes / 1e6),
        fmt(reconstruct.wireBytes / 1e6),
        fmt(reconstruct.loadMs),
        fmt(reconstruct.rebuildMs),
        fmt(reconstruct.fastSerializeMs),
        fmt(reconstruct.plainSerializeMs),
        fmt(reconstruct.plainSerializeMs / reconstruct.fastSerializeMs),
        String(reconstruct.identical),
        fmt(reconstruct.peakGrowthOverLogSize),
      ],
    ]),
  );

  const append = JSON.parse(run("append.ts", "--append", dir, String(quick ? 1000 : 4000))) as AppendResult;
  console.log("\n4. Durable append to JSONL (acknowledged once durable), with the disk's floor measured beside it");
  console.log(
    table([
      ["mode", "events/s", "events per fsync", "ack median ms", "ack p99 ms"],
      ["batches of 100, one writer", fmt(append.batched.eventsPerSecond), fmt(append.batched.eventsPerSync), fmt(append.batched.ackMedianMs), fmt(append.batched.ackP99Ms)],
      ...append.concurrent.map((mode) => [`single events, ${mode.writers} writer(s)`, fmt(mode.eventsPerSecond), fmt(mode.eventsPerSync), fmt(mode.ackMedianMs), fmt(mode.ackP99Ms)]),
      ["the same bytes, no log (disk floor)", fmt(append.rawEventsPerSecond), "100", "", ""],
    ]),
  );
  console.log("   The hash chain's and the signed heads' share, the same batches of 100 interleaved:");
  console.log(
    table([
      ["log", "events/s", "of unchained"],
      ["unchained (a version 1 file: the append path before chains)", fmt(append.unchainedEventsPerSecond), "1"],
      ["chained (every new session)", fmt(append.batched.eventsPerSecond), fmt(append.batched.eventsPerSecond / append.unchainedEventsPerSecond)],
      ["chained, heads signed (Ed25519) to a witness file", fmt(append.signedEventsPerSecond), fmt(append.signedEventsPerSecond / append.unchainedEventsPerSecond)],
    ]),
  );

  const cache = await cacheRatioBench(dir, quick ? 5 : 20);
  console.log(`\n5. Prefix-cache hit ratio, ${cache.requests}-step session with tools through the simulator`);
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

  const anthropic = await anthropicCacheBench(quick ? 5 : 20);
  console.log(`\n6. Anthropic explicit caching, ${anthropic.ours.requests}-step tool session with thinking through the simulator's Messages API`);
  console.log(
    table([
      ["policy", "prompt tokens", "cache read", "cache write", "uncached", "cost (input units)", "read / ceiling", "cost / ours"],
      ...[anthropic.ours, anthropic.common].map((row) => [
        row.policy,
        String(row.promptTokens),
        String(row.cacheReadTokens),
        String(row.cacheWriteTokens),
        String(row.uncachedTokens),
        fmt(row.costUnits),
        fmt(row.readOverCeiling),
        fmt(row.costUnits / anthropic.ours.costUnits),
      ]),
    ]),
  );
  console.log(`   ceiling: ${anthropic.ours.ceilingTokens} tokens repeat the previous request's blocks; cost counts uncached 1x, 5-minute writes 1.25x, reads 0.1x.`);

  const stores = await storesBench(quick);
  const writers = await sqliteWritersBench(quick);
  console.log("\n7c. Many processes writing one SQLite store at once, each its own session (an awaited commit per append, with fsync): processes that wrote every append, and commits per second of all together against one process alone (process start-up included)");
  console.log(
    table([
      ["processes", "appends each", "completed", "commits/s", "vs one process"],
      ...writers.map((row) => [String(row.writers), String(row.appends), `${row.completed} of ${row.writers}`, fmt(row.commitsPerSecond), fmt(row.vsOne)]),
    ]),
  );
  for (const row of writers) if (row.failure !== undefined) console.log(`   ${row.writers} processes, first failure: ${row.failure}`);
  const jsonl = stores[0]!;
  const langGraph = JSON.parse(run("peer-langgraph.ts", String(quick ? 100 : 1000))) as LangGraphRow[];
  console.log(`\n7b. Per-step checkpoint cost against LangGraph ${peerVersion("@langchain/langgraph")} (PostgresSaver) on the same PostgreSQL: a user message in, an assistant message out per step (medians of the ten steps to each)`);
  console.log(
    table([
      ["step", "LangGraph ms", "dsh ms", "LangGraph / dsh", "LangGraph bytes", "dsh bytes", "bytes ratio"],
      ...langGraph.map((row) => [String(row.step), fmt(row.langGraphMs), fmt(row.dshMs), fmt(row.ratio), fmt(row.langGraphBytes), fmt(row.dshBytes), fmt(row.langGraphBytes / row.dshBytes)]),
    ]),
  );

  console.log("\n7. Session stores: durable appends (one event per append, awaited) and load with full admission");
  console.log(
    table([
      ["store", "1 session ev/s", "8 sessions ev/s", "64 sessions ev/s", "load ev/s", "vs JSONL: 1 / 8 / 64", "load vs JSONL"],
      ...stores.map((row) => [
        row.store,
        fmt(row.appendPerSecond["1"]!),
        fmt(row.appendPerSecond["8"]!),
        fmt(row.appendPerSecond["64"]!),
        fmt(row.loadPerSecond),
        ["1", "8", "64"].map((n) => fmt(row.appendPerSecond[n]! / jsonl.appendPerSecond[n]!)).join(" / "),
        fmt(row.loadPerSecond / jsonl.loadPerSecond),
      ]),
    ]),
  );
  console.log(
    table([
      ["store", "its floor", "floor ev/s", "1 session / floor", "its statements bare ev/s", "1 session / statements", "statements / floor"],
      ...stores.flatMap((row) => {
        if (row.floor === undefined) return [];
        const single = row.appendPerSecond["1"]!;
        const bare = row.statements?.eventsPerSecond;
        return [[row.store, row.floor.what, fmt(row.floor.eventsPerSecond), fmt(single / row.floor.eventsPerSecond), bare === undefined ? "" : fmt(bare), bare === undefined ? "" : fmt(single / bare), bare === undefined ? "" : fmt(bare / row.floor.eventsPerSecond)]];
      }),
    ]),
  );

  const wide = await wideAnswerBench(dir, quick ? 2000 : 25_000);
  console.log(`\n8. Commands on one answer with ${wide.calls} and ${4 * wide.calls} tool calls (a ${fmt(wide.logBytes / 1e6)} MB log): time per call, larger over smaller (1.0 is linear)`);
  console.log(table([["command", `${wide.calls} calls ms`, `${4 * wide.calls} calls ms`, "per-call ratio"], ...wide.rows.map((row) => [`dsh ${row.command}`, fmt(row.smallMs), fmt(row.largeMs), fmt(row.perCallRatio)])]));

  const analysis = await analysisBench(quick ? 50 : 250);
  console.log(`\n8b. The analysis packages on a session of ${analysis.events[0]} and of ${analysis.events[1]} events (tool call and answer per turn), each run once, cold: time per event, larger over smaller (1.0 is linear)`);
  console.log(table([["report", `${analysis.events[0]} events ms`, `${analysis.events[1]} events ms`, "per-event ratio"], ...analysis.rows.map((row) => [row.report, fmt(row.smallMs), fmt(row.largeMs), fmt(row.perEventRatio)])]));
  const floor = analysis.rows.at(-1)!;
  const what = analysis.rows.find((row) => row.report.startsWith("whatIf"))!;
  console.log(`   whatIf over the floor (rebuilding every request's bytes once; it rebuilds both sessions' and models their caches): ${fmt(what.smallMs / floor.smallMs)} and ${fmt(what.largeMs / floor.largeMs)}`);

  const responses = await responsesCacheBench(quick ? 5 : 20);
  console.log(`\n10. OpenAI Responses API, ${responses[0]!.requests}-step tool session with reasoning through the simulator (reasoning items sent back, bodies rebuilt)`);
  console.log(
    table([
      ["breakpoints", "prompt tokens", "cache read", "readable limit", "read / limit", "logged breaks", "bodies differing", "reasoning items back"],
      ...responses.map((row) => [row.policy, String(row.promptTokens), String(row.cacheReadTokens), String(row.physicalLimitTokens), fmt(row.readOverLimit), String(row.breaks), String(row.bodyMismatches), String(row.reasoningItemsBack)]),
    ]),
  );
  console.log("   readable limit: the tokens each request shares with the previous one where that prefix reaches OpenAI's 1,024-token minimum.");

  const gemini = await geminiCacheBench(quick ? 5 : 20);
  console.log(`\n13. Gemini API, ${gemini.requests}-step tool session with thinking through the simulator (signatures sent back, bodies rebuilt)`);
  console.log(
    table([
      ["prompt tokens", "cache read", "readable limit", "read / limit", "logged breaks", "bodies differing", "signatures logged", "signatures back"],
      [String(gemini.promptTokens), String(gemini.cacheReadTokens), String(gemini.physicalLimitTokens), fmt(gemini.readOverLimit), String(gemini.breaks), String(gemini.bodyMismatches), String(gemini.signaturesLogged), String(gemini.signaturesBack)],
    ]),
  );
  console.log("   readable limit: the shared prefix, in whole 128-token steps, where it reaches the model's minimum (4,096 tokens on Gemini 3).");

  const cliff = JSON.parse(run("gc-cliff.ts", "--gc-cliff", String(quick ? 2000 : 10_000), quick ? "5" : "9")) as GcCliffResult;
  console.log(`\n11. One session's step (build, freeze, serialize) right after a major GC that freed another session of ${cliff.messages} messages, against its steady steps (medians)`);
  console.log(table([["messages", "steady step ms", "step after GC ms", "after GC / steady"], [String(cliff.messages), fmt(cliff.steadyMs), fmt(cliff.afterGcMs), fmt(cliff.ratio)]]));

  const adapters = JSON.parse(run("adapter-serialize.ts", "--adapters", quick ? "1000" : "1000,10000", quick ? "5" : "15")) as AdapterSerializeRow[];
  console.log("\n14. One request's body by adapter in a growing session: with the session's caches, against the same request frozen alone (medians, alternating)");
  console.log(
    table([
      ["adapter", "prior messages", "session ms", "alone ms", "alone / session", "identical"],
      ...adapters.map((row) => [row.adapter, String(row.priorMessages), fmt(row.sessionMs), fmt(row.aloneMs), fmt(row.ratio), String(row.identical)]),
    ]),
  );

  const results = { date: new Date().toISOString(), node: process.version, cores: cpus().length, quick, loads, pi: piRows, aiSdk, langGraph, buildCost: build, reconstruct, append, cache, anthropic, stores, writers, wide, analysis, responses, gemini, cliff, adapters };
  await writeFile(join(here, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote ${join("bench", "results.json")}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
