import type { ToolCallBlock } from "dsh-llm";

/** A call to run, and whether it must run alone (its tool opted out of running beside others). */
export interface ScheduledCall {
  readonly call: ToolCallBlock;
  readonly alone: boolean;
}

/**
 * Starts the calls of one answer, at most `limit` at once, in the model's order: a call that must
 * run alone waits for every call before it and holds back every call after it. Returns one promise
 * per call, in the model's order, whatever order they finish in; `run` must not reject.
 */
export function startCalls<T>(calls: readonly ScheduledCall[], limit: number, run: (call: ToolCallBlock) => Promise<T>): Promise<T>[] {
  let active = 0;
  const waiting: (() => void)[] = [];
  const slot = async (): Promise<void> => {
    if (active < limit) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next === undefined) active--;
    else next();
  };
  const limited = async (call: ToolCallBlock): Promise<T> => {
    await slot();
    try {
      return await run(call);
    } finally {
      release();
    }
  };
  // Everything started since the last call that ran alone, and that call itself.
  let group: Promise<unknown>[] = [];
  let gate: Promise<unknown> = Promise.resolve();
  return calls.map(({ call, alone }) => {
    if (alone) {
      const before = Promise.all([gate, ...group]);
      const outcome = before.then(() => run(call));
      gate = outcome;
      group = [];
      return outcome;
    }
    const opened = gate;
    const outcome = opened.then(() => limited(call));
    group.push(outcome);
    return outcome;
  });
}
