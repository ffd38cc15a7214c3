// Load: a large JSONL log read with full admission, against the floor of reading the same file,
// splitting it into lines and `JSON.parse`-ing every line (keeping every object), in one process.
// Memory is measured in fresh child processes: heap kept after load, and peak RSS during it.
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readJsonlLog } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { floor } from "./floor.js";
import { benchRegistry } from "./reconstruct.js";
import { collectGarbage, median, medianMemoryOf, memoryOf, timed, type Memory } from "./util.js";

export interface LoadResult {
  readonly events: number;
  readonly logBytes: number;
  readonly floorMs: number;
  readonly loadMs: number;
  /** Median of the per-round ratios load / floor. */
  readonly ratio: number;
  /** Load and the derivation of the model-visible messages (what opening a session to continue it costs). */
  readonly loadDeriveMs: number;
  /** Median of the per-round ratios (load + messages) / floor. */
  readonly deriveRatio: number;
  readonly heapKeptOverLogSize: number;
  readonly peakRssOverLogSize: number;
  /** The same in a warm process, one that has loaded a small log before (what a server or a second load pays). */
  readonly warmPeakRssOverLogSize: number;
  /** The floor's own peak RSS growth over the log size, measured the same way, for scale. */
  readonly floorPeakRssOverLogSize: number;
}

const registry = benchRegistry;

/** One round each of floor and full load, `rounds` times, interleaved; medians and the median ratio. */
export async function loadBench(path: string, rounds: number): Promise<LoadResult> {
  const floors: number[] = [];
  const loads: number[] = [];
  const ratios: number[] = [];
  const derives: number[] = [];
  const deriveRatios: number[] = [];
  let events = 0;
  // Each measurement starts from a collected heap (the bench runs with --expose-gc), so neither pays for the other's garbage.
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const bare = await timed(() => floor(path));
    collectGarbage();
    const full = await timed(() => readJsonlLog(path, registry()));
    events = full.value.log.length;
    collectGarbage();
    const derived = await timed(async () => new SurfaceManager((await readJsonlLog(path, registry())).log).deriveMessages());
    floors.push(bare.ms);
    loads.push(full.ms);
    ratios.push(full.ms / bare.ms);
    derives.push(derived.ms);
    deriveRatios.push(derived.ms / bare.ms);
  }
  const logBytes = statSync(path).size;
  // RSS is noisy (the baseline alone moves by several MB between processes): the median of five children each.
  const memory = medianMemory(path, "load");
  const warmMemory = medianMemory(path, "warm");
  const floorMemory = medianMemory(path, "floor");
  return {
    events,
    logBytes,
    floorMs: median(floors),
    loadMs: median(loads),
    ratio: median(ratios),
    loadDeriveMs: median(derives),
    deriveRatio: median(deriveRatios),
    heapKeptOverLogSize: memory.heapKept / logBytes,
    peakRssOverLogSize: memory.peakRss / logBytes,
    warmPeakRssOverLogSize: warmMemory.peakRss / logBytes,
    floorPeakRssOverLogSize: floorMemory.peakRss / logBytes,
  };
}

function medianMemory(path: string, mode: "load" | "warm" | "floor"): Memory {
  return medianMemoryOf(fileURLToPath(import.meta.url), ["--memory", mode, path]);
}

/**
 * Warms a process up the way earlier work would: loads a small log (the first 200 KB of lines of
 * `path`) twenty times, so the loader is compiled and the young generation has grown before the baseline.
 */
async function warmUp(path: string): Promise<void> {
  const head = readFileSync(path).subarray(0, 200_000);
  const small = `${path}.warm-${process.pid}`;
  writeFileSync(small, head.subarray(0, head.lastIndexOf(0x0a) + 1));
  try {
    for (let i = 0; i < 20; i++) await readJsonlLog(small, registry());
  } finally {
    rmSync(small);
  }
}

// In a fresh process (warmed up for "warm"): the heap the loaded log keeps (after GC, over a baseline
// with the code loaded), and the growth of peak RSS over that baseline while loading.
if (process.argv[2] === "--memory") {
  if (process.argv[3] === "warm") await warmUp(process.argv[4]!);
  const memory = await memoryOf(() => (process.argv[3] === "floor" ? floor(process.argv[4]!) : readJsonlLog(process.argv[4]!, registry())));
  process.stdout.write(JSON.stringify(memory));
}
