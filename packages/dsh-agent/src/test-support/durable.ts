import { LlmError, LlmRuntime, type FrozenGenerateOptions, type LlmAdapter, type ModelDefaults, type StreamChunk } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { z } from "zod";
import { createAgentRegistry } from "../register.js";
import { defineTool } from "../tools.js";

/**
 * An adapter whose answer depends only on the request (its message count), so a request sent again
 * gets the same answer with the same call ids: a model that answers a retried request identically.
 * Message count 2: call `echo` (and `pay` when `withPayment`); 4 or more: answer "done".
 */
export class RequestKeyedAdapter implements LlmAdapter {
  readonly provider = "scripted";
  readonly received: FrozenGenerateOptions[] = [];
  failWith: LlmError | undefined;

  constructor(readonly withPayment = false) {}

  modelDefaults(): ModelDefaults {
    return { maxTokens: 4096 };
  }

  async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    this.received.push(request);
    if (this.failWith !== undefined) throw this.failWith;
    const count = request.messages.length;
    if (count === 2) {
      yield { type: "tool-call-delta", index: 0, callId: "c-echo", name: "echo", argumentsDelta: '{"text":"a"}' };
      if (this.withPayment) yield { type: "tool-call-delta", index: 1, callId: "c-pay", name: "pay", argumentsDelta: '{"cents":100}' };
    } else {
      yield { type: "text-delta", text: "done" };
    }
    yield { type: "usage", usage: { inputTokens: 10 * count, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: count === 2 ? "tool-calls" : "stop" };
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
