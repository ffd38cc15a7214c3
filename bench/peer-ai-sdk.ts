// Per-step cost against the AI SDK (`ai` 7, `streamText` over `@ai-sdk/openai-compatible`), in one
// process under Node 22: with N prior messages in memory, the time from the step's start (the new user
// message added) to the moment the request's bytes are handed to `fetch`. The AI SDK keeps its messages
// in an array; dsh appends the message to its (in-memory) log, builds the request from the cached
// projection, freezes and marks it, and its Chat Completions adapter serializes it. Both get the same
// `fetch`, which records the moment and answers with one short streamed reply. Run by `pnpm bench` as
// `npx -y node@22 … bench/peer-ai-sdk.ts CHECKPOINTS ITERATIONS`.
import { performance } from "node:perf_hooks";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText, type ModelMessage } from "ai";
import { buildLoopRequest, createAgentRegistry } from "dsh-agent";
import { buildEpochHeader } from "dsh-header";
import { RequestFreezer, markAgentLoopRequest } from "dsh-llm";
import { EventLog, type EventInput } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { SurfaceManager, assistantMessageEvent, systemMessageEvent, userMessageEvent } from "dsh-surface";
import { answer, median, question } from "./util.js";

export interface AiSdkRow {
  readonly priorMessages: number;
  /** Median ms from the step's start to `fetch`, AI SDK. */
  readonly aiSdkMs: number;
  /** The same for dsh. */
  readonly dshMs: number;
  /** Median of the per-round ratios AI SDK / dsh (above 1: dsh is cheaper). */
  readonly ratio: number;
}

const reply = `data: ${JSON.stringify({ id: "r", object: "chat.completion.chunk", created: 0, model: "sim-1", choices: [{ index: 0, delta: { role: "assistant", content: "ok" }, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}\n\ndata: [DONE]\n\n`;

/** A `fetch` that records when it is called (the request's bytes in hand) and answers at once. */
function recordingFetch(): { readonly fetch: typeof fetch; calledAt(): number } {
  let at = 0;
  return {
    fetch: (async () => {
      at = performance.now();
      return new Response(reply, { headers: { "content-type": "text/event-stream" } });
    }) as typeof fetch,
    calledAt: () => at,
  };
}

/** The time from `start` to `fetch`, refusing a step whose request never reached `fetch`. */
function sinceStart(calledAt: number, start: number): number {
  if (calledAt < start) throw new Error("the step never reached fetch");
  return calledAt - start;
}

export async function aiSdkBench(checkpoints: readonly number[], iterations: number): Promise<AiSdkRow[]> {
  const aiFetch = recordingFetch();
  const provider = createOpenAICompatible({ name: "sim", baseURL: "http://127.0.0.1:9/v1", fetch: aiFetch.fetch });
  const model = provider.chatModel("sim-1");
  const messages: ModelMessage[] = [];

  const dshFetch = recordingFetch();
  const adapter = new ChatCompletionsAdapter({ provider: "sim", dialect: "openai", baseUrl: "http://127.0.0.1:9", fetch: dshFetch.fetch });
  const log = new EventLog({ registry: createAgentRegistry() });
  const surface = new SurfaceManager(log);
  const freezer = new RequestFreezer();
  const header = buildEpochHeader({ provider: "sim", model: "sim-1" }, { maxTokens: 4096 });
  await log.append(systemMessageEvent.input({ content: "You are a benchmark.", source: "system-prompt" }));

  let failure: unknown;
  const aiStep = async (i: number): Promise<number> => {
    const start = performance.now();
    messages.push({ role: "user", content: question(i) });
    const result = streamText({ model, instructions: "You are a benchmark.", messages });
    await result.consumeStream({ onError: (error) => void (failure ??= error) });
    messages.pop();
    if (failure !== undefined) throw failure;
    return sinceStart(aiFetch.calledAt(), start);
  };
  const dshStep = async (i: number): Promise<number> => {
    const start = performance.now();
    await log.append(userMessageEvent.input({ content: [{ type: "text", text: question(i) }], source: "user" }));
    const request = markAgentLoopRequest(buildLoopRequest(surface.deriveMessages(), header, { freezer }));
    for await (const _ of adapter.stream(request, { attachments: undefined, signal: undefined }));
    return sinceStart(dshFetch.calledAt(), start);
  };

  const rows: AiSdkRow[] = [];
  let prior = 0;
  for (const target of checkpoints) {
    const batch: EventInput[] = [];
    for (; prior < target; prior += 2) {
      const i = prior / 2;
      messages.push({ role: "user", content: question(i) }, { role: "assistant", content: answer(i) });
      batch.push(
        userMessageEvent.input({ content: [{ type: "text", text: question(i) }], source: "user" }),
        assistantMessageEvent.input({ content: [{ type: "text", text: answer(i) }], source: "model" }),
      );
    }
    for (let i = 0; i < batch.length; i += 5000) await log.append(batch.slice(i, i + 5000));
    // A warm-up step of each, as a running loop would have taken.
    await aiStep(-1);
    await dshStep(-1);
    const ai: number[] = [];
    const dsh: number[] = [];
    const ratios: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const a = await aiStep(i);
      const d = await dshStep(i);
      ai.push(a);
      dsh.push(d);
      ratios.push(a / d);
    }
    rows.push({ priorMessages: target, aiSdkMs: median(ai), dshMs: median(dsh), ratio: median(ratios) });
  }
  return rows;
}

if (process.argv[2] !== undefined) {
  const [checkpoints, iterations] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await aiSdkBench(checkpoints!.split(",").map(Number), Number(iterations))));
}
