import { isAgentLoopRequest, LlmError, type FrozenGenerateOptions } from "dsh-llm";
import { EventLog, type EventInput, type LogEvent } from "dsh-log";
import { parseJsonl, serializeEventLine, serializeHeaderLine } from "dsh-log/store";
import { userMessageEvent } from "dsh-surface";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loopAdmission } from "./loop-rule.js";
import { reconstructRequests } from "./reconstruct.js";
import { createAgentRegistry } from "./register.js";
import { body, harness } from "./test-support/harness.js";
import type { ScriptedAnswer } from "./test-support/scripted-adapter.js";
import { defineTool } from "./tools.js";

/** How a harness's log listener appends on its own while the loop runs. */
const appendModes = ["none", "sync-on-step-start", "microtask-on-dispatch", "immediate-on-request", "noise-in-flight"] as const;
type AppendMode = (typeof appendModes)[number];

const action = fc.oneof(
  fc.record({
    kind: fc.constant("turn" as const),
    prompt: fc.string({ minLength: 1, maxLength: 8 }),
    appendMode: fc.constantFrom(...appendModes),
    injectWhileStreaming: fc.boolean(),
    reconfigureInWaterfall: fc.option(fc.constantFrom("model-a", "model-b"), { nil: undefined }),
    startsSeries: fc.boolean(),
  }),
  fc.record({ kind: fc.constant("reconfigure" as const), model: fc.constantFrom("model-a", "model-b", "model-c"), temperature: fc.option(fc.constantFrom(0, 0.5), { nil: undefined }) }),
  fc.record({ kind: fc.constant("load" as const), text: fc.string({ minLength: 1, maxLength: 6 }) }),
  fc.record({ kind: fc.constant("compact" as const) }),
  fc.record({ kind: fc.constant("trim" as const), maxChars: fc.nat(12) }),
  fc.record({ kind: fc.constant("resume" as const) }),
  fc.record({ kind: fc.constant("prompt" as const), version: fc.nat(2) }),
);

const answer: fc.Arbitrary<ScriptedAnswer> = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 10 }) }),
  fc.record({ reasoning: fc.string({ minLength: 1, maxLength: 6 }), text: fc.string({ maxLength: 6 }) }),
  fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 3 }).map((texts) => ({
    toolCalls: texts.map((text) => ({ name: "echo", arguments: JSON.stringify({ text }) })),
  })),
  fc.constant({ partialText: "cut", error: new LlmError("LLM_SERVER_ERROR", "upstream 500", { status: 500 }) }),
  fc.constant({ error: new LlmError("LLM_RATE_LIMITED", "slow down", { status: 429 }) }),
);

const echo = defineTool({ name: "echo", description: "Echo", parameters: z.object({ text: z.string() }), execute: ({ text }) => `echo ${text}` });

const late = (text: string): EventInput => userMessageEvent.input({ content: [{ type: "text", text }], source: "listener" });

const coverage = { requests: 0, refused: 0, accepted: 0, loads: 0, retries: 0, reconfigures: 0 };

describe("every sent request equals its rebuild, whatever interleaves with the loop", () => {
  it("holds for random sessions with listener appends, streaming injections, loads, reconfigures, retries, compactions, trims and resumes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 10 }), fc.array(action, { minLength: 1, maxLength: 10 }), async (answers, actions) => {
        const registry = () => createAgentRegistry().ignore("ui/");
        const log = new EventLog({ registry: registry() });
        let calls = 0;
        let promptVersion = 0;
        let mode: AppendMode = "none";
        let done = false;
        const pending: Promise<void>[] = [];
        const listenerAppend = (input: EventInput) => {
          if (done) return;
          pending.push(
            log.append(input).then(
              () => void coverage.accepted++,
              (error: { code?: string }) => {
                expect(error.code).toBe("LOG_RULE_VIOLATION");
                coverage.refused++;
              },
            ),
          );
        };
        log.subscribe((events) => {
          for (const event of events) {
            if (mode === "sync-on-step-start" && event.type === "step/start") listenerAppend(late("sync"));
            if (mode === "microtask-on-dispatch" && event.type === "request/dispatch") queueMicrotask(() => listenerAppend(late("microtask")));
            if (mode === "noise-in-flight" && event.type === "request/dispatch") queueMicrotask(() => listenerAppend({ type: "ui/progress", data: { seq: event.seq } }));
          }
        });
        const script = (request: FrozenGenerateOptions): ScriptedAnswer =>
          request.messages[0]?.source === "compaction" ? { text: `summary ${calls++}` } : answers[calls++ % answers.length]!;
        const instances: ReturnType<typeof harness>[] = [];
        const start = () => {
          const instance = harness(script, { log, tools: [echo], maxSteps: 4, systemPrompt: () => `prompt v${promptVersion}` });
          instances.push(instance);
          return instance.agent;
        };
        let agent = start();
        for (const step of actions) {
          switch (step.kind) {
            case "turn": {
              mode = step.appendMode;
              const offs = [
                agent.on("agent/request", () => {
                  if (mode === "immediate-on-request") setImmediate(() => listenerAppend(late("immediate")));
                  if (step.reconfigureInWaterfall !== undefined) agent.reconfigure({ provider: "scripted", model: step.reconfigureInWaterfall });
                }),
                agent.on("agent/pre-step", ({ step: index }) => (index === 0 && step.startsSeries ? { action: "enter", startsRequestSeries: true } : undefined)),
              ];
              let injected = false;
              const onChunk = () => {
                if (step.injectWhileStreaming && !injected) agent.inject("streamed context");
                injected = true;
              };
              await agent.run(step.prompt, { onChunk }).catch((error: unknown) => {
                if (!(error instanceof LlmError)) throw error;
              });
              for (const off of offs) off();
              mode = "none";
              break;
            }
            case "reconfigure":
              coverage.reconfigures++;
              agent.reconfigure({ provider: "scripted", model: step.model, ...(step.temperature === undefined ? {} : { temperature: step.temperature }) });
              break;
            case "load":
              // A loaded message joins the surface behind the system prompt, between turns.
              if (agent.surface.state.nodes.length === 0 || log.ruleState(loopAdmission).openTurn !== undefined || agent.surface.state.openCalls.length > 0) break;
              coverage.loads++;
              log.load([{ seq: log.length, type: "user/message", time: 1, data: { content: [{ type: "text", text: step.text }], source: "loaded" } } as LogEvent]);
              break;
            case "compact":
              await agent.compact({ keepRecent: 2 });
              break;
            case "trim":
              await agent.trimToolResults({ maxChars: step.maxChars, keepRecent: 1 });
              break;
            case "resume":
              agent = start();
              break;
            case "prompt":
              promptVersion = step.version;
              break;
          }
          for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
          await Promise.all(pending.splice(0));
        }
        done = true;

        // The log, written as JSONL and parsed back, rebuilds exactly the requests that were sent.
        const text = serializeHeaderLine({ format: "dsh-log", version: 1, sessionId: "s", createdAt: 0 }) + log.slice().map(serializeEventLine).join("");
        const reloaded = parseJsonl(Buffer.from(text)).events;
        const received = instances.flatMap((instance) => instance.adapter.received);
        const sent = received.filter((request, i) => isAgentLoopRequest(request) && received.indexOf(request) === i);
        const rebuilt = await reconstructRequests(reloaded, { registry: registry() });
        expect(rebuilt.map((r) => body(r.request))).toEqual(sent.map(body));
        coverage.requests += rebuilt.length;
        coverage.retries += reloaded.filter((event) => event.type === "request/retry").length;
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 60) },
    );
    // The generated sessions did exercise what the property is about.
    for (const [what, count] of Object.entries(coverage)) expect(count, what).toBeGreaterThan(0);
  }, 300_000);
});
