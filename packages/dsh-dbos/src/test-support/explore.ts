import { appendFileSync } from "node:fs";
import { defineTool, type AgentTool } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { z } from "zod";
import type { TurnAgent } from "../durable-turns.js";

/** Long enough (over 64 tokens) that a request sent again reads the simulator's prefix cache. */
export const SYSTEM_PROMPT = `You are a careful assistant that explores a small directory. ${"List before you read, read before you answer, and keep every answer short. ".repeat(6)}`;

/** The model the tests select on the simulator (Chat Completions, DeepSeek's dialect). */
export const SIM_CONFIG = { provider: "sim", model: "sim-1" } as const;

/** The two tools the simulator's `explore` policy calls: a listing, then a read; `runs` (a file) counts each read. */
export function exploreTools(runs?: string, readIsSafeToRerun = true): AgentTool[] {
  return [
    defineTool({ name: "list_dir", description: "List a directory", parameters: z.object({ path: z.string() }), execute: () => "notes.txt\n" }),
    defineTool({
      name: "read_file",
      description: "Read a file",
      parameters: z.object({ path: z.string() }),
      safeToRerun: readIsSafeToRerun,
      execute: ({ path }) => {
        if (runs !== undefined) appendFileSync(runs, `${path}\n`);
        return `Contents of ${path}: the meeting moved to Thursday.`;
      },
    }),
  ];
}

/** The agent the tests run: the simulator behind `adapter` (default: Chat Completions at `simUrl`), the explore tools. */
export function exploreAgent(simUrl: string, options: { readonly runs?: string; readonly readIsSafeToRerun?: boolean; readonly adapter?: (inner: LlmAdapter) => LlmAdapter } = {}): TurnAgent {
  const inner = new ChatCompletionsAdapter({ provider: "sim", dialect: "deepseek", baseUrl: simUrl });
  return {
    runtime: new LlmRuntime({ adapters: [options.adapter?.(inner) ?? inner] }),
    systemPrompt: SYSTEM_PROMPT,
    tools: exploreTools(options.runs, options.readIsSafeToRerun ?? true),
    retry: { maxRetries: 0, baseDelayMs: 0, maxDelayMs: 0 },
  };
}
