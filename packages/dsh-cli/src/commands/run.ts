import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Agent, createAgentRegistry, requestRetryEvent, type TurnResult } from "dsh-agent";
import { LlmRuntime, type StreamChunk } from "dsh-llm";
import { createJsonlLog, type LogEvent } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { loadScenario, startSimulator, type Simulator } from "dsh-simulator";
import { toolResultEvent } from "dsh-surface";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { apiKeyFor, providerProfile } from "../providers.js";
import { attachmentStore, defaultLogPath } from "../session.js";
import { workspaceTools } from "../workspace-tools.js";

export const DEFAULT_SYSTEM_PROMPT =
  "You are dsh, a careful assistant with a read-only view of the user's working directory. " +
  "Use list_dir and read_file to look before you answer, and answer briefly.";

export const RUN_USAGE = `dsh run [--provider sim|deepseek|openai] [--base-url URL] [--model M] [--log PATH]
        [--system TEXT] [--max-steps N] [--timeout MS] [--scenario FILE] [--record-wire FILE] [--objects DIR] PROMPT`;

/** `dsh run`: one agent turn on PROMPT, logged to a JSONL file. */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      provider: { type: "string", default: "sim" },
      "base-url": { type: "string" },
      model: { type: "string" },
      log: { type: "string" },
      system: { type: "string" },
      "max-steps": { type: "string", default: "16" },
      timeout: { type: "string", default: "120000" },
      scenario: { type: "string" },
      "record-wire": { type: "string" },
      objects: { type: "string" },
    },
  });
  const prompt = positionals.join(" ").trim();
  if (prompt === "") throw new CliError(`missing PROMPT\nusage: ${RUN_USAGE}`, EXIT.usage);
  const maxSteps = Number(values["max-steps"]);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new CliError("--max-steps takes a whole number of at least 1", EXIT.usage);
  const idleTimeoutMs = Number(values.timeout);
  if (!Number.isInteger(idleTimeoutMs) || idleTimeoutMs < 1) throw new CliError("--timeout takes a whole number of milliseconds", EXIT.usage);
  const profile = providerProfile(values.provider);
  const inProcessSimulator = profile.name === "sim" && values["base-url"] === undefined;
  if (!inProcessSimulator && (values.scenario !== undefined || values["record-wire"] !== undefined)) {
    throw new CliError("--scenario and --record-wire apply to the embedded simulator only", EXIT.usage);
  }
  const apiKey = apiKeyFor(profile, io.env);
  if (profile.name !== "sim" && apiKey === undefined) {
    throw new CliError(`no API key for ${profile.name}: set ${profile.keyVariables.join(" or ")}`, EXIT.usage);
  }

  let simulator: Simulator | undefined;
  if (inProcessSimulator) {
    const recordTo = values["record-wire"] === undefined ? undefined : resolve(io.cwd, values["record-wire"]);
    if (recordTo !== undefined) await mkdir(dirname(recordTo), { recursive: true });
    simulator = await startSimulator({
      scenario: values.scenario === undefined ? { policy: "explore" } : await loadScenario(resolve(io.cwd, values.scenario)),
      ...(recordTo === undefined ? {} : { recordTo }),
    });
  }
  const baseUrl = simulator?.url ?? values["base-url"] ?? profile.baseUrl!;
  const logPath = values.log === undefined ? await defaultLogPath(io.cwd, new Date()) : resolve(io.cwd, values.log);
  try {
    const adapter = new ChatCompletionsAdapter({
      provider: profile.name,
      dialect: profile.dialect,
      baseUrl,
      ...(apiKey === undefined ? {} : { apiKey }),
      modelDefaults: () => profile.modelDefaults,
      idleTimeoutMs,
    });
    const runtime = new LlmRuntime({ adapters: [adapter], attachments: attachmentStore(io.cwd, values.objects) });
    const { log } = await createJsonlLog(logPath, { registry: createAgentRegistry() });
    const progress = showProgress(io);
    const unsubscribe = log.subscribe((events) => events.forEach(progress.event));
    const agent = new Agent({
      log,
      runtime,
      config: { provider: profile.name, model: values.model ?? profile.defaultModel },
      systemPrompt: values.system ?? DEFAULT_SYSTEM_PROMPT,
      tools: workspaceTools(io.cwd),
      maxSteps,
    });
    let result: TurnResult;
    try {
      result = await agent.run(prompt, { onChunk: progress.chunk, ...(io.signal === undefined ? {} : { signal: io.signal }) });
    } finally {
      progress.finish();
      unsubscribe();
      await log.close();
      io.stderr.write(`dsh: log: ${logPath}\n`);
    }
    io.stderr.write(`dsh: turn ${result.turn} ${result.reason} after ${result.steps} step(s)\n`);
    if (result.reason === "aborted") return EXIT.interrupted;
    return result.reason === "completed" ? EXIT.ok : EXIT.failure;
  } finally {
    await simulator?.close();
  }
}

/** Progress while a run streams: answer text on stdout, steps, tool calls and retries on stderr. */
function showProgress(io: CliIo) {
  let midLine = false;
  const note = (text: string) => {
    if (midLine) io.stdout.write("\n");
    midLine = false;
    io.stderr.write(`dsh: ${text}\n`);
  };
  return {
    chunk(chunk: StreamChunk) {
      if (chunk.type !== "text-delta" || chunk.text === "") return;
      io.stdout.write(chunk.text);
      midLine = !chunk.text.endsWith("\n");
    },
    event(event: LogEvent) {
      if (event.type === "step/start") {
        note(`step ${(event.data as { step: number }).step + 1}`);
      } else if (event.type === "assistant/message") {
        for (const block of (event.data as { content: { type: string; name?: string; arguments?: string }[] }).content) {
          if (block.type === "tool-call") note(`  → ${block.name} ${block.arguments}`);
        }
      } else if (toolResultEvent.is(event)) {
        const text = event.data.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("");
        note(`  ← ${event.data.toolName}${event.data.isError ? " (error)" : ""}: ${text.split("\n").length} line(s)`);
      } else if (requestRetryEvent.is(event)) {
        note(`  retry ${event.data.attempt} in ${event.data.delayMs} ms after ${event.data.error.code}`);
      }
    },
    /** Ends the answer's line on stdout. */
    finish() {
      if (midLine) io.stdout.write("\n");
      midLine = false;
    },
  };
}
