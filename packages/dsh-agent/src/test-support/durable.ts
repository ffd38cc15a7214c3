import { LlmError, LlmRuntime, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type StreamChunk } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { z } from "zod";
import { createAgentRegistry } from "../register.js";
import { defineTool } from "../tools.js";

/** What the model answers to a request with `count` messages: text, tool calls (ids fixed by name and position), a finish reason. */
export interface PlannedAnswer {
  readonly text?: string;
  readonly calls?: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly finish?: "stop" | "tool-calls" | "length";
}

/** Two messages (the system prompt and the input): text and a call of `echo` (and of `pay`); later: "done". */
export function echoPlan(withPayment: boolean): (count: number) => PlannedAnswer {
  return (count) =>
    count === 2
      ? { text: "Let me check.", calls: [{ id: "c-echo", name: "echo", arguments: '{"text":"a"}' }, ...(withPayment ? [{ id: "c-pay", name: "pay", arguments: '{"cents":100}' }] : [])] }
      : { text: "done" };
}

/**
 * An adapter whose answer depends only on the request (its message count), so a request sent again
 * gets the same answer with the same call ids: a model that answers a retried request identically.
 * `failures` are thrown, one per call, before any answer.
 */
export class RequestKeyedAdapter implements LlmAdapter {
  readonly provider = "scripted";
  readonly received: FrozenGenerateOptions[] = [];
  readonly failures: unknown[] = [];
  readonly plan: (count: number) => PlannedAnswer;

  constructor(plan: boolean | ((count: number) => PlannedAnswer) = false) {
    this.plan = typeof plan === "function" ? plan : echoPlan(plan);
  }

  /** Fails every call from now on with `error` (for one call: push it on `failures`). */
  set failWith(error: LlmError) {
    this.#always = error;
  }

  #always: LlmError | undefined;

  modelDefaults(): ModelDefaults {
    return { maxTokens: 4096 };
  }

  async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    this.received.push(request);
    if (this.failures.length > 0) throw this.failures.shift();
    if (this.#always !== undefined) throw this.#always;
    const count = request.messages.length;
    const answer = this.plan(count);
    if (answer.text !== undefined) yield { type: "text-delta", text: answer.text };
    for (const [index, call] of (answer.calls ?? []).entries()) yield { type: "tool-call-delta", index, callId: call.id, name: call.name, argumentsDelta: call.arguments };
    yield { type: "usage", usage: { inputTokens: 10 * count, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: answer.finish ?? ((answer.calls?.length ?? 0) > 0 ? "tool-calls" : "stop") };
  }
}

/** A payment tool, not safe to rerun, that counts its runs. */
export function paymentTool(runs: { count: number }) {
  return defineTool({
    name: "pay",
    description: "Pay an amount",
    parameters: z.object({ cents: z.number() }),
    safeToRerun: false,
    execute: ({ cents }) => {
      runs.count++;
      return `paid ${cents}`;
    },
  });
}

/** A runtime over `adapter`. */
export function runtimeOf(adapter: LlmAdapter): LlmRuntime {
  return new LlmRuntime({ adapters: [adapter] });
}

/** A log of the agent's registry holding `events` (a process that loads what was committed). */
export function reloaded(events: readonly LogEvent[]): EventLog {
  return new EventLog({ registry: createAgentRegistry(), events: [...events] });
}

/** The events' types and data, without their times: what two runs of the same turn must agree on. */
export function timeless(log: EventLog): { type: string; data: unknown }[] {
  return log.slice().map(({ type, data }) => ({ type, data }));
}
