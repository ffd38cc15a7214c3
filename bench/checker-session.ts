// The scripted "checker" session the cache benchmarks (sections 5, 10 and 13) share.
import type { Agent, ReconstructedRequest } from "dsh-agent";
import type { LlmCallConfig } from "dsh-llm";
import type { EventLog } from "dsh-log";
import type { ScriptedResponse } from "dsh-simulator";

/** `turns` turns of `stepsPerTurn` steps: a lookup call per step, then an answer; each step reasons when `reasoning`. */
export function checkerScript(turns: number, stepsPerTurn: number, reasoning: boolean): ScriptedResponse[] {
  const responses: ScriptedResponse[] = [];
  for (let turn = 0; turn < turns; turn++) {
    for (let step = 0; step < stepsPerTurn - 1; step++) {
      const call = { toolCalls: [{ name: "lookup", arguments: { key: `t${turn}-s${step}` } }] };
      responses.push(reasoning ? { reasoning: `Part ${step} next.`, ...call } : { text: `Checking part ${step}.`, ...call });
    }
    const answer = `Turn ${turn} done: all ${stepsPerTurn - 1} parts checked.`;
    responses.push(reasoning ? { reasoning: "All checked.", text: answer } : { text: answer });
  }
  return responses;
}

/** Runs the turns: the system prompt changes at the half (through `changePrompt`), the model at three quarters. */
export async function runCheckerTurns(agent: Agent, turns: number, changePrompt: () => void, switchedConfig: LlmCallConfig): Promise<void> {
  for (let turn = 0; turn < turns; turn++) {
    if (turn === Math.floor(turns / 2)) changePrompt();
    if (turn === Math.floor((3 * turns) / 4)) agent.reconfigure(switchedConfig);
    await agent.run(`Check batch ${turn}.`);
  }
}

function commonPrefix(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Per request after the first: the prompt tokens it shares with the previous one (none after a model switch), and whether that is a break. */
export function sharedPrefixes(requests: readonly ReconstructedRequest[], tokens: readonly ArrayLike<number>[]): { readonly shared: number; readonly isBreak: boolean }[] {
  return requests.slice(1).map((current, at) => {
    const sameModel = requests[at]!.request.config.model === current.request.config.model;
    const shared = sameModel ? commonPrefix(tokens[at]!, tokens[at + 1]!) : 0;
    return { shared, isBreak: shared < tokens[at]!.length };
  });
}

/** The usage each `step/end` logged, in order. */
export function stepUsages(log: EventLog): { readonly cacheReadTokens: number; readonly inputTokens: number }[] {
  return log.slice().flatMap((event) => (event.type === "step/end" ? [(event.data as { usage: { cacheReadTokens: number; inputTokens: number } }).usage] : []));
}

/** What a checker session through the simulator shows of its cache, counted the same way for every API. */
export interface CheckerCacheFigures {
  readonly requests: number;
  /** Prompt tokens of every request after the first, as the provider reported them. */
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  /** The shared prefixes the provider could read, each as `readable` counts it. */
  readonly physicalLimitTokens: number;
  readonly readOverLimit: number;
  readonly breaks: number;
  /** Requests whose rebuilt body differs from what the simulator received (there must be none). */
  readonly bodyMismatches: number;
}

/**
 * The cache figures of a session: its rebuilt `requests` with their `bodies` and prompt `tokens`,
 * the log's reported usage, and `received` (the simulator's bodies, in order). `readable` says how
 * much of a shared prefix the provider's rules could read for the request after it.
 */
export function checkerCacheFigures(
  log: EventLog,
  requests: readonly ReconstructedRequest[],
  bodies: readonly string[],
  tokens: readonly ArrayLike<number>[],
  received: readonly { readonly body: string }[],
  readable: (shared: number, request: ReconstructedRequest) => number,
): CheckerCacheFigures {
  const usage = stepUsages(log).slice(1);
  const prefixes = sharedPrefixes(requests, tokens);
  const physical = prefixes.reduce((sum, { shared }, at) => sum + readable(shared, requests[at + 1]!), 0);
  const read = usage.reduce((sum, u) => sum + u.cacheReadTokens, 0);
  return {
    requests: requests.length,
    promptTokens: usage.reduce((sum, u) => sum + u.inputTokens, 0),
    cacheReadTokens: read,
    physicalLimitTokens: physical,
    readOverLimit: read / physical,
    breaks: prefixes.filter(({ isBreak }) => isBreak).length,
    bodyMismatches: bodies.filter((body, i) => body !== received[i]?.body).length,
  };
}
