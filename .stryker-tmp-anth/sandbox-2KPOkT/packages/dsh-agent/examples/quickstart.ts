import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compareRequests, defineTool, openAgent } from "dsh-agent";
import type { FrozenGenerateOptions } from "dsh-llm";
import { ChatCompletionsAdapter, DEEPSEEK_MODELS } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

const clock = defineTool({
  name: "clock",
  description: "The current time in a time zone",
  parameters: z.object({ zone: z.string() }),
  execute: ({ zone }) => `12:00 in ${zone}`,
});

export async function main(): Promise<boolean> {
  // A loopback stand-in for DeepSeek; for the real API use baseUrl "https://api.deepseek.com" and your key.
  const sim = await startSimulator({
    scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: { zone: "UTC" } }] }, { text: "It is noon in UTC." }, { text: "You asked for the time." }] },
  });
  const deepseek = new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url, apiKey: process.env.DEEPSEEK_API_KEY, catalog: DEEPSEEK_MODELS });
  const path = join(await mkdtemp(join(tmpdir(), "dsh-agent-")), "session.jsonl");
  const sent: FrozenGenerateOptions[] = [];
  try {
    // A new session: the file is created, the model and prompt are logged with the first request.
    const first = await openAgent({ session: path, adapters: [deepseek], config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "Be brief.", tools: [clock] });
    first.runtime.on("llm/stream", ({ request }) => sent.push(request));
    console.log((await first.agent.run("What time is it?")).text); // It is noon in UTC.
    await first.close();

    // Later, maybe in another process: the same call continues the session with its model and prompt.
    const later = await openAgent({ session: path, adapters: [deepseek], tools: [clock] });
    later.runtime.on("llm/stream", ({ request }) => sent.push(request));
    const { text, usage } = await later.agent.run("What did I ask?");
    console.log(later.resumed, text, usage.cacheReadTokens > 0); // true You asked for the time. true

    // Every request, rebuilt from the log alone, is the one that was sent.
    const comparison = await compareRequests(later.log, sent);
    console.log(comparison); // { same: true, compared: 3 }
    await later.close();
    return comparison.same;
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
