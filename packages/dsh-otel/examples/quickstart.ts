import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Agent, createAgentRegistry, defineTool } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { createSpanExporter, exportLive, exportSession } from "dsh-otel";
import { startSimulator } from "dsh-simulator";
import { z } from "zod";

export async function main(): Promise<boolean> {
  // Any OTLP/HTTP receiver will do (a collector, Langfuse, Phoenix, Honeycomb); this one prints span names.
  const received: string[] = [];
  const receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      const { resourceSpans } = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: { name: string; spanId: string }[] }[] }[] };
      for (const span of resourceSpans.flatMap((r) => r.scopeSpans).flatMap((s) => s.spans)) received.push(`${span.spanId} ${span.name}`);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const exporter = createSpanExporter({ endpoint: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, protocol: "http/json" });
  // A stand-in for the model: it calls the tool, then answers.
  const sim = await startSimulator({ scenario: { responses: [{ toolCalls: [{ name: "clock", arguments: {} }] }, { text: "It is noon." }] } });
  try {
    const clock = defineTool({ name: "clock", description: "The time", parameters: z.object({}), execute: () => "12:00" });
    const log = new EventLog({ registry: createAgentRegistry() });
    const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })] });
    const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "Be brief.", tools: [clock] });

    // Live: spans leave as the agent logs; each id comes from the session and the seq of its event.
    const live = exportLive(log, exporter, { sessionId: "quickstart" });
    await agent.run("What time is it?");
    await live.stop();
    for (const line of received) console.log(line.slice(17)); // execute_tool clock, chat deepseek-v4-flash (x2), invoke_agent

    // After the fact, from the log alone: the same spans, the same ids.
    const sentLive = [...received];
    received.length = 0;
    await exportSession(log.slice(), exporter, { sessionId: "quickstart" });
    return JSON.stringify(received) === JSON.stringify(sentLive);
  } finally {
    await exporter.shutdown();
    await sim.close();
    receiver.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
