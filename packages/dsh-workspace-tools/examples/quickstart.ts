import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { workspaceTools } from "dsh-workspace-tools";

export async function main(): Promise<boolean> {
  // A project folder with notes, a credentials file and a session log the agent must not read.
  const root = await mkdtemp(join(tmpdir(), "project-"));
  await writeFile(join(root, "notes.txt"), "Ship on Friday.\n");
  await writeFile(join(root, ".env"), "API_TOKEN=s3cret\n");
  await writeFile(join(root, "session.jsonl"), "{}\n");

  // A stand-in model that lists the folder, then tries the credentials file.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { toolCalls: [{ name: "read_file", arguments: { path: ".env" } }] }, { text: "Done." }] } });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const tools = workspaceTools(root, { hidden: [join(root, "session.jsonl")] });
    await new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, tools }).run("What is in the project?");

    // What the tools gave the model, as logged.
    const results = log.slice().flatMap((event) => (event.type === "tool/result" ? [(event.data as { content: { text: string }[] }).content[0]!.text] : []));
    for (const text of results) console.log(text);
    return results[0] === ".env\nnotes.txt" && results[1]!.includes("TOOL_DENIED");
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
