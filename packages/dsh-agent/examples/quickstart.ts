import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry, defineTool, reconstructRequests } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { createJsonlLog, readJsonlLog } from "dsh-log";
import { z } from "zod";

// A stand-in provider: asks for the clock tool once, then answers. Real adapters live in their own packages.
const adapter: LlmAdapter = {
  provider: "demo",
  async *stream(request) {
    const last = request.messages.at(-1);
    if (last?.role === "tool") {
      yield { type: "text-delta", text: `The tool said: ${JSON.stringify(last.content)}` };
      yield { type: "finish", reason: "stop" };
    } else {
      yield { type: "tool-call-delta", index: 0, callId: "call-1", name: "clock", argumentsDelta: '{"zone":"UTC"}' };
      yield { type: "finish", reason: "tool-calls" };
    }
  },
};

const clock = defineTool({
  name: "clock",
  description: "The current time in a time zone",
  parameters: z.object({ zone: z.string() }),
  execute: ({ zone }) => `12:00 in ${zone}`,
});

export async function main(): Promise<boolean> {
  const path = join(await mkdtemp(join(tmpdir(), "dsh-quickstart-")), "session.jsonl");
  const { log } = await createJsonlLog(path, { registry: createAgentRegistry() });
  const sent: unknown[] = [];
  const runtime = new LlmRuntime({ adapters: [adapter] });
  runtime.on("llm/stream", ({ request }) => sent.push(request));

  const agent = new Agent({ log, runtime, config: { provider: "demo", model: "demo-1" }, systemPrompt: "Be brief.", tools: [clock] });
  const result = await agent.run("What time is it?");
  console.log(result.reason, "-", result.text);
  await log.close();

  // Rebuild every request from the file alone and compare with what was sent.
  const { log: reloaded } = await readJsonlLog(path, createAgentRegistry());
  const rebuilt = await reconstructRequests(reloaded);
  const strip = ({ signal: _signal, ...rest }: { signal?: unknown }) => JSON.stringify(rest);
  const same = rebuilt.length === sent.length && rebuilt.every((r, i) => strip(r.request) === strip(sent[i] as object));
  console.log(`${rebuilt.length} requests rebuilt from ${path}; identical to what was sent: ${same}`);
  return same;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
