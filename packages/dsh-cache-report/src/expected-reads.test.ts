import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { LlmRuntime } from "dsh-llm";
import { EventLog } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { startSimulator } from "dsh-simulator";
import { makePng } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { expectedCacheReads } from "./expected-reads.js";

describe("expectedCacheReads", () => {
  it("reads each request's images from the session's objects, and gives the share the provider's cache reads of it", async () => {
    const sim = await startSimulator({ scenario: { responses: [{ text: "A picture." }, { text: "Still a picture." }] } });
    try {
      const attachments = new MemoryAttachmentStore();
      const image = await putImage(attachments, makePng(2, 2));
      const log = new EventLog({ registry: createAgentRegistry() });
      const runtime = new LlmRuntime({ adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })], attachments });
      const agent = new Agent({ log, runtime, config: { provider: "deepseek", model: "deepseek-v4-flash" }, systemPrompt: "You are careful. ".repeat(40) });
      await agent.run([{ type: "text", text: "What is this?" }, { type: "image", image }]);
      await agent.run("And now?");
      const requests = await reconstructRequests(log);
      const times = log.slice().filter((event) => event.type === "request/dispatch").map((event) => event.time);
      const expected = expectedCacheReads({ attachments });
      const shares = [];
      for (const [i, request] of requests.entries()) shares.push(await expected({ ...request, time: times[i]! }));
      // The first request finds a cold cache; the second reads what the provider reported reading, as a share of its prompt.
      const reported = sim.exchanges.map((exchange) => exchange.cacheHitTokens / exchange.promptTokens);
      expect(shares).toEqual(reported);
      expect(shares[1]).toBeGreaterThan(0.5);
      // Without the objects the image cannot be sent again, so no share can be given.
      await expect(expectedCacheReads()({ ...requests[0]!, time: times[0]! })).rejects.toMatchObject({ code: "ATTACHMENT_MISSING" });
    } finally {
      await sim.close();
    }
  });
});
