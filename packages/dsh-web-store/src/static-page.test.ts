import { Agent, createAgentRegistry, type AgentTool } from "dsh-agent";
import { MemoryAttachmentStore } from "dsh-attachments";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import type { SessionView } from "dsh-web";
import { expect, it } from "vitest";
import { sessionHtml } from "./static-page.js";

it("keeps a 150-step session's exported page under 2 MB: each wire body's start, never the whole history again and again", async () => {
  const notes = "A line of notes about the project, with enough words to matter. ".repeat(80);
  const responses = [...Array.from({ length: 149 }, () => ({ toolCalls: [{ name: "read_notes", arguments: {} }] })), { text: "Done reading." }];
  const sim = await startSimulator({ scenario: { responses }, keepBodies: false });
  try {
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const read: AgentTool = { schema: { name: "read_notes", description: "Reads the notes.", parameters: { type: "object" } }, invoke: async () => ({ content: [{ type: "text", text: notes }], isError: false, additionalContexts: [] }) };
    const turn = await new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, tools: [read], maxSteps: 200 }).run("Read the notes, again and again.");
    expect(turn.steps).toBe(150);
    const html = await sessionHtml({ info: { sessionId: "long", createdAt: 0 }, log }, new MemoryAttachmentStore());
    expect(Buffer.byteLength(html)).toBeLessThan(2_000_000);
    const view = JSON.parse(/<script type="application\/json" id="dsh-data">(.*?)<\/script>/s.exec(html)![1]!) as SessionView;
    expect(view.requests).toHaveLength(150);
    // The last request's body holds every earlier result: the page has its start and its size.
    const last = view.requests.at(-1)!;
    expect(last.wire).toHaveLength(2048);
    expect(last.wireBytes).toBeGreaterThan(149 * notes.length);
  } finally {
    await sim.close();
  }
}, 60_000);
