import { MemoryAttachmentStore, putImage } from "dsh-attachments";
import { EventLog } from "dsh-log";
import { describe, expect, it } from "vitest";
import { makePng } from "dsh-testkit";
import { createAgentRegistry } from "./register.js";
import { reconstructRequests } from "./reconstruct.js";
import { harness, types } from "./test-support/harness.js";

describe("a turn left open by a crash", () => {
  it("is closed with logged closers before the next turn, tool calls included", async () => {
    const crashed = harness((_r, index) => (index === 0 ? { toolCalls: [{ name: "echo", arguments: '{"text":"x"}' }] } : { text: "ok" }));
    // Simulate a crash right after the model asked for a tool: copy the log up to the assistant message.
    await crashed.agent.run("go");
    const events = crashed.log.slice();
    const cut = events.findIndex((event) => event.type === "assistant/message") + 1;
    const log = EventLog.from(createAgentRegistry(), events.slice(0, cut));
    const resumed = harness(() => ({ text: "back" }), { log });
    await resumed.agent.run("again");
    expect(types(log).slice(cut, cut + 4)).toEqual(["tool/result", "step/end", "turn/end", "turn/start"]);
    expect(log.get(cut)?.data).toMatchObject({ isError: true, source: "recovery" });
    expect(log.get(cut + 1)?.data).toMatchObject({ reason: "interrupted" });
  });
});

describe("reconstructRequests with attachments", () => {
  it("verifies every referenced image and fails loudly on a missing one", async () => {
    const store = new MemoryAttachmentStore();
    const image = await putImage(store, makePng(2, 3));
    const { agent, log } = harness(() => ({ text: "seen" }));
    await agent.run([{ type: "text", text: "look" }, { type: "image", image }]);
    await expect(reconstructRequests(log, { attachments: store })).resolves.toHaveLength(1);
    await expect(reconstructRequests(log, { attachments: new MemoryAttachmentStore() })).rejects.toMatchObject({
      code: "ATTACHMENT_MISSING",
    });
  });
});
