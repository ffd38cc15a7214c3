import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import { readJsonlLog, type EventLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { measured, measuredPrompts, tokenizedRequests, type MeasuredPrompt } from "dsh-cache-report";
import { attachmentStore } from "./session.js";
import { runCli } from "./test-support/run-cli.js";
import { forkPoint, replayWithChange } from "dsh-what-if";
import { currentAdapter } from "./providers.js";

/** Counts the messages the simulator tokenizes as Chat Completions messages, and the Gemini contents. */
const tokenized = vi.hoisted(() => ({ messages: 0, contents: 0 }));
vi.mock("dsh-simulator", async (original) => {
  const simulator = await original<typeof import("dsh-simulator")>();
  return {
    ...simulator,
    promptTokens: (body: { messages?: unknown }) => {
      tokenized.messages += Array.isArray(body.messages) ? body.messages.length : 0;
      return simulator.promptTokens(body);
    },
    geminiPromptTokens: (body: { contents?: unknown }) => {
      tokenized.contents += Array.isArray(body.contents) ? body.contents.length : 0;
      return simulator.geminiPromptTokens(body);
    },
  };
});

let dir: string;
const project = () => join(dir, "project");
const cli = (...argv: string[]) => runCli(argv, { cwd: project() });

const toolTurn = [
  { reasoning: "Look first.", text: "Looking.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
  { reasoning: "Read the notes.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
  { text: "Notes and a picture." },
];

async function scenario(name: string, responses: readonly object[]): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

/** A session that appends, resumes, switches model, is compacted and carries images in two turns. */
async function chatSession(name: string): Promise<string> {
  const log = join(dir, `${name}.jsonl`);
  const tools = await scenario("tools", toolTurn);
  expect((await cli("run", "--image", "shot.png", "--scenario", tools, "--log", log, "What is here?")).code).toBe(0);
  expect((await cli("resume", log, "--scenario", tools, "--image", "shot.png", "Again, with the picture.")).code).toBe(0);
  expect((await cli("resume", log, "--model", "sim-2", "--scenario", tools, "Look again.")).code).toBe(0);
  expect((await cli("compact", log, "--keep", "2")).code).toBe(0);
  expect((await cli("resume", log, "--scenario", tools, "Once more.")).code).toBe(0);
  return log;
}

/** A session through `provider`'s API that appends, resumes with an image, is compacted and resumes again. */
async function apiSession(provider: "sim-anthropic" | "sim-openai-responses" | "sim-gemini", name: string = provider): Promise<string> {
  const log = join(dir, `${name}.jsonl`);
  const tools = await scenario(provider, toolTurn);
  expect((await cli("run", "--provider", provider, "--image", "shot.png", "--scenario", tools, "--log", log, "What is here?")).code).toBe(0);
  expect((await cli("resume", log, "--scenario", tools, "--image", "shot.png", "Again, with the picture.")).code).toBe(0);
  expect((await cli("compact", log, "--keep", "2")).code).toBe(0);
  expect((await cli("resume", log, "--scenario", tools, "Once more.")).code).toBe(0);
  return log;
}

async function load(path: string): Promise<EventLog> {
  return (await readJsonlLog(path, createAgentRegistry())).log;
}

async function collect(prompts: AsyncIterable<MeasuredPrompt>) {
  const out: unknown[] = [];
  for await (const { request, promptTokens, sharedTokens, messages } of prompts) {
    out.push({ turn: request.turn, step: request.step, dispatchSeq: request.dispatchSeq, header: request.snapshot.header, promptTokens, sharedTokens, messages });
  }
  return out;
}

/** An attachment store that counts the reads of each object. */
function counting(store: AttachmentStore): { readonly store: AttachmentStore; readonly reads: () => number } {
  let reads = 0;
  return {
    store: {
      put: (bytes) => store.put(bytes),
      has: (digest) => store.has(digest),
      get: (digest, options) => {
        reads++;
        return store.get(digest, options);
      },
    },
    reads: () => reads,
  };
}

/** The attachment reads of measuring `log` whole and as `measuredPrompts` does, and how many requests it has. */
async function readsBothWays(log: EventLog) {
  const whole = counting(attachmentStore(project(), undefined));
  for await (const _ of tokenizedRequests(log, whole.store));
  const appended = counting(attachmentStore(project(), undefined));
  const requests = (await collect(measuredPrompts(log, appended.store))).length;
  return { whole: whole.reads(), appended: appended.reads(), requests };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-measured-"));
  await mkdir(project());
  await writeFile(join(project(), "notes.txt"), "Remember the milk.\n");
  await writeFile(join(project(), "shot.png"), makePng(3, 2));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("measuredPrompts", () => {
  it("measures every request as rebuilding, serializing and tokenizing it whole does", async () => {
    for (const path of [await chatSession("chat"), await apiSession("sim-anthropic"), await apiSession("sim-openai-responses"), await apiSession("sim-gemini")]) {
      const log = await load(path);
      const objects = attachmentStore(project(), undefined);
      const whole = await collect(measured(tokenizedRequests(log, objects)));
      expect(whole.length).toBeGreaterThanOrEqual(3);
      expect(await collect(measuredPrompts(log, objects))).toEqual(whole);
    }
  });

  it("counts a Chat Completions request that only appends from its new messages, reading none of its images", async () => {
    // Rebuilt whole, each request reads each image it holds: one in each of turn 0's three requests,
    // two in each of turn 1's and turn 2's; the compaction drops both before turn 3. Measured, a request
    // that only appends reads nothing: the images are read by the first request of each turn (its
    // header is new, so it is rebuilt whole) and by the last one of the turn before, tokenized again to
    // compare with: 1 in turn 0, 1 + 2 in turn 1, 2 + 2 in turn 2, 2 + 0 in turn 3.
    expect(await readsBothWays(await load(await chatSession("images")))).toEqual({ whole: 15, appended: 10, requests: 12 });
  });

  it("counts a Responses request that only appends from its new messages' items, reading none of its images", async () => {
    // Rebuilt whole: one image in each of turn 0's three requests, two in each of turn 1's; the
    // compaction drops both before turn 2. Measured: the first request of each turn (a new header) is
    // rebuilt whole and the last of the turn before tokenized again: 1, then 1 + 2, then 2 + 0.
    expect(await readsBothWays(await load(await apiSession("sim-openai-responses", "responses-images")))).toEqual({ whole: 9, appended: 6, requests: 9 });
  });

  // One turn of six tool steps and an answer, its first message with an image. Rebuilt whole, each of
  // the seven requests reads the image; measured, only the first does, once for its body and once for
  // what the six after it extend (a Messages API layout, Gemini's contents).
  it.each([
    ["renders only the new blocks of a Messages API request that only adds messages", "sim-anthropic"],
    ["renders only the last content and the new ones of a Gemini request that only adds messages", "sim-gemini"],
  ])("%s, reading none of its images", async (_, provider) => {
    const steps = Array.from({ length: 6 }, (_, i) => ({ reasoning: `Step ${i}.`, text: `Looking ${i}.`, toolCalls: [{ name: "list_dir", arguments: { path: `d${i}` } }] }));
    const path = join(dir, `${provider}-long.jsonl`);
    const run = await cli("run", "--provider", provider, "--image", "shot.png", "--scenario", await scenario(`${provider}-long`, [...steps, { text: "Done." }]), "--log", path, "List them.");
    expect(run.code).toBe(0);
    const log = await load(path);
    const whole = counting(attachmentStore(project(), undefined));
    const rebuilt = await collect(measured(tokenizedRequests(log, whole.store)));
    const appended = counting(attachmentStore(project(), undefined));
    expect(await collect(measuredPrompts(log, appended.store))).toEqual(rebuilt);
    expect(rebuilt).toHaveLength(7);
    expect(whole.reads()).toBe(7);
    expect(appended.reads()).toBe(2);
  });
});

describe("tokenizedRequests", () => {
  const tokensOf = async (log: EventLog, extend: boolean) => {
    const out = [];
    for await (const request of tokenizedRequests(log, attachmentStore(project(), undefined), { extend })) out.push({ ...request, tokens: Array.from(request.tokens) });
    return out;
  };

  it("with extend, yields the bodies and tokens of tokenizing every request whole, across new headers, compaction and images", async () => {
    for (const path of [await chatSession("extend-chat"), await apiSession("sim-anthropic", "extend-messages"), await apiSession("sim-gemini", "extend-gemini")]) {
      const log = await load(path);
      const whole = await tokensOf(log, false);
      expect(whole.length).toBeGreaterThanOrEqual(7);
      expect(await tokensOf(log, true)).toEqual(whole);
    }
  });

  it("with extend, tokenizes whole a request whose header has new tools though its messages only grow", async () => {
    const recorded = await load(await chatSession("extend-tools"));
    const events = recorded.slice();
    const tools = [{ name: "only_tool", description: "The one tool now.", parameters: { type: "object" } }];
    const attachments = attachmentStore(project(), undefined);
    const changed = (await replayWithChange(events, forkPoint(events, 1), { kind: "tools", tools }, { agent: { maxSteps: 16 }, attachments }, currentAdapter)).log;
    const whole = await tokensOf(changed, false);
    expect(whole.some((request) => request.wire.includes("only_tool"))).toBe(true);
    expect(await tokensOf(changed, true)).toEqual(whole);
  });

  it("with extend, tokenizes a Chat Completions request that only adds messages from its new messages", async () => {
    const steps = Array.from({ length: 8 }, (_, i) => ({ text: `Looking ${i}.`, toolCalls: [{ name: "list_dir", arguments: { path: `d${i}` } }] }));
    const path = join(dir, "extend-long.jsonl");
    expect((await cli("run", "--scenario", await scenario("extend-long", [...steps, { text: "Done." }]), "--log", path, "List them.")).code).toBe(0);
    const log = await load(path);
    tokenized.messages = 0;
    const requests = await tokensOf(log, true);
    expect(requests).toHaveLength(9);
    // The first request whole, then each later one's new answer and tool result: the last request's messages, each once.
    expect(tokenized.messages).toBe(requests.at(-1)!.request.request.messages.length);
    tokenized.messages = 0;
    await tokensOf(log, false);
    expect(tokenized.messages).toBe(requests.reduce((sum, request) => sum + request.request.request.messages.length, 0));
  });

  it("with extend, renders a Gemini request that only adds messages from the previous one's last content on", async () => {
    const steps = Array.from({ length: 8 }, (_, i) => ({ text: `Looking ${i}.`, toolCalls: [{ name: "list_dir", arguments: { path: `d${i}` } }] }));
    const path = join(dir, "extend-gemini-long.jsonl");
    expect((await cli("run", "--provider", "sim-gemini", "--scenario", await scenario("extend-gemini-long", [...steps, { text: "Done." }]), "--log", path, "List them.")).code).toBe(0);
    const log = await load(path);
    tokenized.contents = 0;
    const requests = await tokensOf(log, true);
    expect(requests).toHaveLength(9);
    const contents = requests.map((request) => (JSON.parse(request.wire) as { contents: unknown[] }).contents.length);
    // The first request whole and its last content; then for each later one its last content, and the
    // contents from the previous one's last on.
    expect(tokenized.contents).toBe(contents[0]! + 1 + contents.slice(1).reduce((sum, count, i) => sum + 1 + count - contents[i]! + 1, 0));
    expect(tokenized.contents).toBeLessThan(contents.reduce((sum, count) => sum + count, 0));
  });
});
