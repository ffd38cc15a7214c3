import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonEquals, LlmError, type FrozenGenerateOptions, type JsonValue } from "dsh-llm";
import { createJsonlLog, readJsonlLog, type LogEvent } from "dsh-log";
import { replaceOf, isSurfaceEvent } from "dsh-surface";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAgentRegistry } from "./events.js";
import { reconstructRequests } from "./reconstruct.js";
import { body, harness } from "./test-support/harness.js";
import type { ScriptedAnswer } from "./test-support/scripted-adapter.js";
import { defineTool } from "./tools.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-agent-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const shoutTool = defineTool({
  name: "shout",
  description: "Upper-case the text",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => ({ content: text.toUpperCase(), additionalContexts: text.length % 2 === 0 ? [`shouted ${text}`] : [] }),
});

const answer: fc.Arbitrary<ScriptedAnswer> = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 12 }) }),
  fc.record({ reasoning: fc.string({ minLength: 1, maxLength: 8 }), text: fc.string({ maxLength: 8 }) }),
  fc.array(fc.record({ name: fc.constantFrom("echo", "shout", "missing"), text: fc.string({ maxLength: 6 }) }), { minLength: 1, maxLength: 3 }).map(
    (calls) => ({ toolCalls: calls.map((call) => ({ name: call.name, arguments: JSON.stringify({ text: call.text }) })) }),
  ),
  fc.constant({ partialText: "cut", error: new LlmError("LLM_SERVER_ERROR", "upstream 500", { status: 500 }) }),
  fc.constant({ error: new LlmError("LLM_STREAM_INTERRUPTED", "stream dropped") }),
);

const turnPlan = fc.record({
  prompt: fc.string({ minLength: 1, maxLength: 10 }),
  injectBefore: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
  injectDuringRequest: fc.boolean(),
  systemVersion: fc.nat(2),
  toggleShout: fc.boolean(),
  model: fc.option(fc.constantFrom("model-a", "model-b"), { nil: undefined }),
  startsSeries: fc.boolean(),
  preStepMessage: fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined }),
});

/** Whether `before`'s messages are a prefix of `after`'s with the same config and tools. */
function extendsPrefix(before: FrozenGenerateOptions, after: FrozenGenerateOptions): boolean {
  const json = (value: unknown) => value as JsonValue;
  return (
    jsonEquals(json(before.config), json(after.config)) &&
    jsonEquals(json(before.tools), json(after.tools)) &&
    before.messages.length <= after.messages.length &&
    before.messages.every((message, i) => jsonEquals(json(message), json(after.messages[i])))
  );
}

/** The logged events between two dispatches that explain a prefix break. */
function explanations(events: readonly LogEvent[], from: number, to: number): string[] {
  return events.slice(from + 1, to).flatMap((event) => {
    if (event.type === "request/header") return [`header:${(event.data as { reason: string }).reason}`];
    if (isSurfaceEvent(event) && replaceOf(event) !== undefined) return [`replace:${event.type}`];
    return [];
  });
}

let sessions = 0;
const seen = { requests: 0, breaks: 0, retries: 0, replaces: 0, changes: 0 };

describe("reconstructRequests", () => {
  it("rebuilds every dispatched request from the reloaded JSONL log, and every prefix break is explained by a logged event", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 12 }), fc.array(turnPlan, { minLength: 1, maxLength: 4 }), async (answers, turns) => {
        const path = join(dir, `session-${sessions++}.jsonl`);
        const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
        let systemVersion = 0;
        let plan = turns[0]!;
        const { agent, adapter } = harness((_request, index) => answers[index % answers.length]!, {
          log,
          maxSteps: 4,
          systemPrompt: () => `You are version ${systemVersion}.${systemVersion === 2 ? "   " : ""}`,
        });
        agent.on("agent/request", (seed) => {
          if (plan.injectDuringRequest) agent.inject("injected during the waterfall");
          return plan.model === undefined ? undefined : { ...seed, model: plan.model };
        });
        agent.on("agent/pre-step", ({ step }) =>
          step === 0
            ? { action: "enter", startsRequestSeries: plan.startsSeries, ...(plan.preStepMessage === undefined ? {} : { messages: [plan.preStepMessage] }) }
            : undefined,
        );
        for (const current of turns) {
          plan = current;
          systemVersion = current.systemVersion;
          if (current.toggleShout && !agent.tools.unregister("shout")) agent.tools.register(shoutTool);
          if (current.injectBefore !== undefined) agent.inject(current.injectBefore);
          await agent.run(current.prompt).catch((error: unknown) => {
            if (!(error instanceof LlmError)) throw error;
          });
        }
        await log.close();

        const reloaded = await readJsonlLog(path, createAgentRegistry());
        const events = reloaded.log.slice();
        const rebuilt = await reconstructRequests(events);
        const dispatched = adapter.received.filter((request, i) => adapter.received.indexOf(request) === i);
        expect(rebuilt.map((r) => body(r.request))).toEqual(dispatched.map(body));

        for (let i = 1; i < rebuilt.length; i++) {
          const [previous, current] = [rebuilt[i - 1]!, rebuilt[i]!];
          if (!extendsPrefix(previous.request, current.request)) {
            seen.breaks++;
            expect(explanations(events, previous.dispatchSeq, current.dispatchSeq)).not.toEqual([]);
          }
        }
        seen.requests += rebuilt.length;
        seen.retries += events.filter((event) => event.type === "request/retry").length;
        seen.replaces += explanations(events, -1, events.length).filter((why) => why.startsWith("replace")).length;
        seen.changes += explanations(events, -1, events.length).filter((why) => why === "header:change").length;
      }),
      { numRuns: 60 },
    );
    // The generated sessions really did exercise breaks, retries, prompt replaces and config changes.
    expect(seen.breaks).toBeGreaterThan(0);
    expect(seen.retries).toBeGreaterThan(0);
    expect(seen.replaces).toBeGreaterThan(0);
    expect(seen.changes).toBeGreaterThan(0);
  }, 120_000);

});
