import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { checkFixture, formatFixtureReport, recordFixture, refreshFixture } from "dsh-fixtures";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { EventLog } from "dsh-log";

// A stand-in for a real provider: it answers every request with the same words.
const model: LlmAdapter = {
  provider: "demo",
  async *stream() {
    yield { type: "text-delta", text: "Hello!" };
    yield { type: "finish", reason: "stop" };
  },
};

export async function main(): Promise<boolean> {
  // 1. A session as your harness runs it (here in memory, two turns).
  const log = new EventLog({ registry: createAgentRegistry() });
  const runtime = new LlmRuntime({ adapters: [model] });
  const agent = new Agent({ log, runtime, config: { provider: "demo", model: "m" }, systemPrompt: "Be brief." });
  await agent.run("hi");
  await agent.run("and again");

  // 2. Record it: fixture.json, session.jsonl (canonical), prompts/r1.txt, tools/r1.json.
  const dir = join(await mkdtemp(join(tmpdir(), "dsh-")), "greeting");
  await recordFixture({ events: log.slice() }, dir);
  console.log(formatFixtureReport(await checkFixture(dir))); // replayed keyless: unchanged

  // 3. Edit the prompt: the check names the requests that change and the cache consequence.
  await writeFile(join(dir, "prompts", "r1.txt"), "Be brief and kind.");
  console.log(formatFixtureReport(await checkFixture(dir)).split("\n").slice(0, 6).join("\n"));

  // 4. Accept the change: refresh rewrites the fixture from the replay, and the check passes again.
  await refreshFixture(dir);
  return (await checkFixture(dir)).ok;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
