import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry, defineTool, type AgentOptions, type AgentTool } from "dsh-agent";
import { LlmRuntime, isAgentLoopRequest, type FrozenGenerateOptions, type LlmAdapter, type StreamChunk } from "dsh-llm";
import { EventLog, type LogEvent } from "dsh-log";
import { type JsonlHeader } from "dsh-log/store";
import { z } from "zod";

/** A deterministic model: it echoes the user's words through the `echo` tool once, then answers; summaries are fixed text. */
export class EchoModel implements LlmAdapter {
  readonly provider = "scripted";
  readonly requests: FrozenGenerateOptions[] = [];

  /** `cwd`: the working directory whose `notes.txt` the tool calls name, by absolute path. */
  constructor(readonly cwd = process.cwd()) {}

  modelDefaults(): { maxTokens: number } {
    return { maxTokens: 1000 };
  }

  async *stream(request: FrozenGenerateOptions): AsyncGenerator<StreamChunk> {
    this.requests.push(request);
    const last = request.messages.at(-1)!;
    const size = JSON.stringify(request.messages).length;
    const usage = { inputTokens: size, outputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0 };
    if (!isAgentLoopRequest(request)) {
      yield { type: "text-delta", text: `summary of ${request.messages.length} messages` };
    } else if (last.role === "user") {
      const text = last.content.map((block) => (block.type === "text" ? block.text : "an image")).join(" ");
      yield { type: "tool-call-delta", index: 0, callId: `call-${this.requests.length}`, name: "echo", argumentsDelta: JSON.stringify({ text, path: `${this.cwd}/notes.txt` }) };
      yield { type: "usage", usage };
      yield { type: "finish", reason: "tool-calls" };
      return;
    } else {
      yield { type: "text-delta", text: `done after ${request.messages.length} messages` };
    }
    yield { type: "usage", usage };
    yield { type: "finish", reason: "stop" };
  }
}

/** The echo tool as the code defines it (`description` can be varied to play a code change). */
export function echoTool(description = "Echo the text back"): AgentTool {
  return defineTool({
    name: "echo",
    description,
    parameters: z.object({ text: z.string(), path: z.string() }),
    execute: ({ text }) => `echo: ${text}`,
  });
}

export const SYSTEM_PROMPT = "You are a test.\nAnswer briefly.";

/** An agent over `log` with the echo model, prompt and tool. */
export function echoAgent(log: EventLog, model: EchoModel, options: Partial<AgentOptions> = {}): Agent {
  return new Agent({
    log,
    runtime: new LlmRuntime({ adapters: [model] }),
    config: { provider: "scripted", model: "model-a" },
    systemPrompt: SYSTEM_PROMPT,
    tools: [echoTool()],
    ...options,
  });
}

/** A recorded session as `recordFixture` takes it. */
export interface Session {
  readonly header: JsonlHeader;
  readonly events: readonly LogEvent[];
}

/** A session header as a JSONL log would have it. */
export function sessionHeader(sessionId: string, parent?: JsonlHeader["parent"]): JsonlHeader {
  return { format: "dsh-log", version: 1, sessionId, createdAt: Date.now(), ...(parent === undefined ? {} : { parent }) };
}

/** Two turns of the echo session in one loop instance. */
export async function echoSession(options: Partial<AgentOptions> = {}): Promise<Session> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const agent = echoAgent(log, new EchoModel(), options);
  await agent.run("hello");
  await agent.run("again");
  return { header: sessionHeader("0f7c1d2e-live-session"), events: log.slice() };
}

/** A fresh directory for a fixture. */
export async function fixtureDir(name = "echo"): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), "dsh-fixture-")), name);
}
