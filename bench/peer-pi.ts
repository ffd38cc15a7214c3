// Session load against pi (@mariozechner/pi-coding-agent), in one process under Node 22: the same
// conversation written through each library's own API, then opened to be continued — pi's
// `SessionManager.open` + `buildSessionContext()` against dsh's `readJsonlLog` (full admission) and
// the messages of a `SurfaceManager` on the loaded log (what `openAgent` does), and beside them
// dsh's `openJsonlLog`, which also locks the file for its one writer — in interleaved
// rounds, with the bare read + split + JSON.parse of each file beside it; then the memory of one
// open in fresh processes. Run by `pnpm bench` as `npx -y node@22 … bench/peer-pi.ts DIR STEPS ROUNDS`.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { openJsonlLog, readJsonlLog } from "dsh-log";
import { SurfaceManager } from "dsh-surface";
import { floor } from "./floor.js";
import { benchRegistry, writeBenchLog } from "./reconstruct.js";
import { collectGarbage, median, medianMemoryOf, memoryOf, type Memory } from "./util.js";

/** pi's figures beside dsh's for one conversation size. */
export interface PiLoadResult {
  readonly steps: number;
  /** Messages the model sees after opening, in each library. */
  readonly piMessages: number;
  readonly dshMessages: number;
  readonly piMs: number;
  readonly dshMs: number;
  /** Median of the per-round ratios dsh / pi (below 1: dsh is faster). */
  readonly ratio: number;
  /** dsh's open for appending (`openJsonlLog`: the file locked for one writer) and the messages; its close is not counted. */
  readonly dshWritableMs: number;
  /** Median of the per-round ratios of that open to pi's. */
  readonly writableRatio: number;
  readonly piFloorMs: number;
  readonly dshFloorMs: number;
  /** The memory of one open in fresh processes, for the sizes where it is the session's (see {@link MEMORY_STEPS}). */
  readonly memory?: {
    /** The heap an opened session keeps, in bytes (medians of fresh processes). */
    readonly piHeapKept: number;
    readonly dshHeapKept: number;
    /** How far peak RSS grows while opening it, in bytes (the same processes). */
    readonly piPeakRss: number;
    readonly dshPeakRss: number;
    /** The heap a second open of the session keeps beside the first (the first open's compiled code is paid once per process). */
    readonly piSecondHeapKept: number;
    readonly dshSecondHeapKept: number;
  };
}

/**
 * Below this many steps the memory of one open in a fresh process is mostly the first open's own
 * (compiled code, for dsh about 1 MB), not the session's, so it is not measured.
 */
const MEMORY_STEPS = 1_000;

const usage = { input: 100, output: 10, cacheRead: 64, cacheWrite: 0, totalTokens: 174, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/**
 * The bench conversation through pi's API, step for step as `writeBenchLog` writes dsh's: a user
 * message per turn of ten steps, then per step an assistant tool call and its result.
 */
function writePiSession(dir: string, steps: number): string {
  const session = SessionManager.create(dir, dir);
  for (let step = 0; step < steps; step++) {
    const turn = Math.floor(step / 10);
    if (step % 10 === 0) session.appendMessage({ role: "user", content: [{ type: "text", text: `Task ${turn}: summarize the files.` }], timestamp: step });
    const id = `call-${step}`;
    session.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "read_file", arguments: { path: `src/file-${step}.ts` } }],
      api: "openai-completions",
      provider: "sim",
      model: "sim-1",
      usage,
      stopReason: "toolUse",
      timestamp: step,
    });
    session.appendMessage({ role: "toolResult", toolCallId: id, toolName: "read_file", content: [{ type: "text", text: `export const value${step} = ${step}; // a short file\n` }], isError: false, timestamp: step });
  }
  return session.getSessionFile()!;
}

export async function piLoadBench(dir: string, steps: number, rounds: number): Promise<PiLoadResult> {
  const piPath = writePiSession(join(dir, `pi-${steps}`), steps);
  const dshPath = join(dir, `dsh-${steps}.jsonl`);
  await writeBenchLog(dshPath, steps, 0);
  const pis: number[] = [];
  const dshs: number[] = [];
  const writables: number[] = [];
  const writableRatios: number[] = [];
  const ratios: number[] = [];
  const piFloors: number[] = [];
  const dshFloors: number[] = [];
  let piMessages = 0;
  let dshMessages = 0;
  // Two warm-up rounds (one in each order) compile both loaders before anything is counted. Each load
  // starts from a collected heap that holds nothing of the other's (only the message counts are kept),
  // and the two take turns going first; where a library stands in the order moves its time, so an even
  // count of rounds gives each the same number of turns in each place.
  // A small session is opened many times in a row per measurement, as a server opening many would (the
  // first open after a full collection is slower for both libraries, and would be all that is counted).
  const repeat = steps < MEMORY_STEPS ? REPEAT_SMALL : 1;
  const openPi = () => openPiSession(piPath).messages.length;
  const openDsh = async () => (await openDshSession(dshPath)).messages.length;
  // A log open for appending is closed (its lock released) after each open, outside the time: pi has no close.
  const openWritable = () => openDshSession(dshPath, "append");
  const closeWritable = (opened: Awaited<ReturnType<typeof openDshSession>>) => opened.log.close();
  const collectedThen = <T>(fn: () => T | Promise<T>, release?: (value: T) => Promise<void>) => {
    collectGarbage();
    return timedEach(fn, repeat, release);
  };
  for (let round = -2; round < rounds; round++) {
    const piFirst = round % 2 === 0 ? await collectedThen(openPi) : undefined;
    const dsh = await collectedThen(openDsh);
    const writable = await collectedThen(openWritable, closeWritable);
    const pi = piFirst ?? (await collectedThen(openPi));
    const piFloor = await collectedThen(() => floor(piPath).length);
    const dshFloor = await collectedThen(() => floor(dshPath).length);
    if (round < 0) continue;
    piMessages = pi.value;
    dshMessages = dsh.value;
    pis.push(pi.ms);
    dshs.push(dsh.ms);
    ratios.push(dsh.ms / pi.ms);
    writables.push(writable.ms);
    writableRatios.push(writable.ms / pi.ms);
    piFloors.push(piFloor.ms);
    dshFloors.push(dshFloor.ms);
  }
  const memory =
    steps < MEMORY_STEPS
      ? undefined
      : { pi: medianMemory("pi", piPath, "first"), dsh: medianMemory("dsh", dshPath, "first"), piSecond: medianMemory("pi", piPath, "second"), dshSecond: medianMemory("dsh", dshPath, "second") };
  return {
    steps,
    piMessages,
    dshMessages,
    piMs: median(pis),
    dshMs: median(dshs),
    ratio: median(ratios),
    dshWritableMs: median(writables),
    writableRatio: median(writableRatios),
    piFloorMs: median(piFloors),
    dshFloorMs: median(dshFloors),
    ...(memory === undefined
      ? {}
      : {
          memory: {
            piHeapKept: memory.pi.heapKept,
            dshHeapKept: memory.dsh.heapKept,
            piPeakRss: memory.pi.peakRss,
            dshPeakRss: memory.dsh.peakRss,
            piSecondHeapKept: memory.piSecond.heapKept,
            dshSecondHeapKept: memory.dshSecond.heapKept,
          },
        }),
  };
}

/** How many times in a row a small session is opened per measurement. */
const REPEAT_SMALL = 100;

/**
 * `fn` called `times` times in a row (awaited only when it returns a promise), each value handed to
 * `release` when given, which is not timed: the last value and the milliseconds per call.
 */
async function timedEach<T>(fn: () => T | Promise<T>, times: number, release?: (value: T) => Promise<void>): Promise<{ value: T; ms: number }> {
  let total = 0;
  let last: T | undefined;
  for (let call = 0; call < times; call++) {
    const start = performance.now();
    const returned = fn();
    const value = returned instanceof Promise ? await returned : returned;
    total += performance.now() - start;
    if (release !== undefined) await release(value);
    last = value;
  }
  return { value: last as T, ms: total / times };
}

/** pi's open: the session and the context a harness continues from. */
function openPiSession(path: string) {
  const session = SessionManager.open(path);
  return { session, messages: session.buildSessionContext().messages };
}

/** dsh's open: the admitted log (read, or open for appending) and the messages a harness continues from. */
async function openDshSession(path: string, mode: "read" | "append" = "read") {
  const { log } = mode === "read" ? await readJsonlLog(path, benchRegistry()) : await openJsonlLog(path, { registry: benchRegistry() });
  return { log, messages: new SurfaceManager(log).deriveMessages() };
}

/**
 * The memory of one open in each of five fresh processes (medians): the heap still held after a
 * collection while the opened session is kept, and the growth of peak RSS, both over a baseline
 * taken once both libraries' code is loaded. With `second`, of an open of the same session beside
 * one opened (and kept) before the baseline: the heap a further session costs (its peak RSS means nothing).
 */
function medianMemory(library: "pi" | "dsh", path: string, open: "first" | "second"): Memory {
  return medianMemoryOf(fileURLToPath(import.meta.url), ["--memory", library, path, open]);
}

/** The session a `second` measurement opens first: held by the module, so it stays in the baseline. */
let openedBefore: unknown;

if (process.argv[2] === "--memory") {
  const path = process.argv[4]!;
  const openOnce = () => (process.argv[3] === "pi" ? openPiSession(path) : openDshSession(path));
  if (process.argv[5] === "second") openedBefore = await openOnce();
  process.stdout.write(JSON.stringify(await memoryOf(openOnce)));
} else if (process.argv[2] !== undefined) {
  const [dir, steps, rounds] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await piLoadBench(dir!, Number(steps), Number(rounds))));
}
