// 8b. The analysis packages on a long session: the cache report, the cost per event and a what-if,
// time per event of log at N and 4N turns (1.0 is linear). The session is written through the agent
// loop with an in-process model, so its log is what a harness writes.
import { Agent, createAgentRegistry, defineTool, reconstructRequestStream } from "dsh-agent";
import { cacheReport } from "dsh-cache-report";
import { costReport } from "dsh-cost-report";
import { LlmRuntime, type LlmAdapter, type ModelPrice } from "dsh-llm";
import { EventLog } from "dsh-log";
import { whatIf } from "dsh-what-if";
import { wireBody } from "dsh-wire";
import { z } from "zod";
import { timed } from "./util.js";

/** A model that calls the tool once per turn, then answers, reporting usage that grows as the prompt does and reads all but the newest part. */
function scriptedModel(): LlmAdapter {
  let calls = 0;
  let prompt = 400;
  return {
    provider: "sim",
    async *stream() {
      const call = calls++ % 2 === 0;
      const before = prompt;
      prompt += call ? 40 : 260;
      if (call) yield { type: "tool-call-delta", index: 0, callId: `c${calls}`, name: "read", argumentsDelta: `{"path":"src/file-${calls}.ts"}` };
      else yield { type: "text-delta", text: `The file holds value ${calls}.` };
      yield { type: "usage", usage: { inputTokens: prompt, outputTokens: 20, cacheReadTokens: before, cacheWriteTokens: 0 } };
      yield { type: "finish", reason: call ? "tool-calls" : "stop" };
    },
  };
}

/** A tool whose results carry `tag`, so no two sessions share a message a tokenizer has seen. */
const read = (tag: string) => defineTool({ name: "read", description: "Reads a file", parameters: z.object({ path: z.string() }), execute: ({ path }) => `// ${tag} ${path}\n${"export const value = 1;\n".repeat(10)}` });
const price: ModelPrice = { input: 1, cacheRead: 0.1, output: 2, checked: "bench", source: "bench" };

/** A session of `turns` turns of a tool call and an answer each, its text marked with `tag`. */
async function session(turns: number, tag: string): Promise<Session> {
  const adapter = scriptedModel();
  const log = new EventLog({ registry: createAgentRegistry() });
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [adapter] }), config: { provider: "sim", model: "sim-1" }, systemPrompt: `You read files and say what they hold (${tag}).`, tools: [read(tag)] });
  for (let turn = 0; turn < turns; turn++) await agent.run(`What is in file ${turn} of ${tag}?`);
  return { log, adapter };
}

interface Session {
  readonly log: EventLog;
  readonly adapter: LlmAdapter;
}

export interface AnalysisRow {
  readonly report: string;
  readonly smallMs: number;
  readonly largeMs: number;
  /** Time per event at 4N over time per event at N: 1.0 is linear, 4.0 quadratic. */
  readonly perEventRatio: number;
}

/**
 * Times each report on a session of `turns` turns and of `4 * turns`, cold as a report runs once in a
 * process: the code is warmed up on a third session, and each report reads sessions of its own, whose
 * messages no tokenizer has seen. The floor is rebuilding every request's exact bytes once, which a
 * what-if does for both sessions: the sum of the requests' sizes grows with the square of a session.
 */
export async function analysisBench(turns: number): Promise<{ events: readonly [number, number]; rows: AnalysisRow[] }> {
  const reports: readonly [string, (s: Session) => Promise<unknown>][] = [
    [
      "cacheReport",
      async ({ log }) => {
        let rows = 0;
        for await (const _row of cacheReport(log)) rows++;
        return rows;
      },
    ],
    ["costReport (by event)", async ({ log }) => costReport(log, { prices: () => price, byEvent: true })],
    ["whatIf (new prompt at the last turn)", async ({ log, adapter }) => whatIf(log, { kind: "system", text: "You are brief." }, { at: lastTurnStart(log), adapters: [adapter], prices: () => price })],
    [
      "floor: every request's bytes rebuilt once",
      async ({ log }) => {
        let bytes = 0;
        for await (const rebuilt of reconstructRequestStream(log)) bytes += (await wireBody(rebuilt)).length;
        return bytes;
      },
    ],
  ];
  const rows: AnalysisRow[] = [];
  let events: [number, number] = [0, 0];
  for (const [index, [report, run]] of reports.entries()) {
    await run(await session(Math.max(1, turns / 4), `warm ${index}`));
    const small = await session(turns, `small ${index}`);
    const large = await session(4 * turns, `large ${index}`);
    events = [small.log.length, large.log.length];
    const smallMs = (await timed(() => run(small))).ms;
    const largeMs = (await timed(() => run(large))).ms;
    rows.push({ report, smallMs, largeMs, perEventRatio: largeMs / large.log.length / (smallMs / small.log.length) });
  }
  return { events, rows };
}

function lastTurnStart(log: EventLog): number {
  return log.slice().findLast((event) => event.type === "turn/start")!.seq;
}
