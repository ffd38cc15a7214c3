import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { assistantContentSchema, generateOptionsSchema } from "dsh-llm/schemas";
import { afterEach, beforeEach, expect, it } from "vitest";
import { z } from "zod";
import { createJsonlLog } from "./jsonl-file.js";
import { EventRegistry, defineEvent } from "./registry.js";

const API_KEY = "sk-test-4f3c2b1a0987654321fedcba";

/** An adapter that holds a key the way real ones do: in its own closure, used only for transport. */
function keyedAdapter(apiKey: string): LlmAdapter {
  return {
    provider: "keyed",
    async *stream(request) {
      const headers = { authorization: `Bearer ${apiKey}` };
      yield { type: "text-delta", text: `sent ${request.messages.length} messages with ${Object.keys(headers).length} header` };
      yield { type: "finish", reason: "stop" };
    },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-secrets-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it("never writes an API key passed to a provider into any file", async () => {
  const requestEvent = defineEvent("test/request", generateOptionsSchema);
  const answerEvent = defineEvent("test/answer", z.strictObject({ content: z.array(assistantContentSchema) }));
  const registry = new EventRegistry().define(requestEvent, answerEvent);
  const { log } = await createJsonlLog(join(dir, "session.jsonl"), { registry });
  const runtime = new LlmRuntime({ adapters: [keyedAdapter(API_KEY)] });

  const request = {
    config: { provider: "keyed", model: "m" },
    messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "hello" }], source: "user" }],
  };
  await log.append(requestEvent.input(request));
  const result = await runtime.generate(request);
  await log.append(answerEvent.input({ content: result.content }));

  // A caller who tries to smuggle the key into the logged config is refused, and the refusal does not echo it.
  const smuggled = log.append(requestEvent.input({ ...request, config: { ...request.config, apiKey: API_KEY } as never }));
  await expect(smuggled).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
  await expect(smuggled).rejects.not.toThrow(API_KEY);
  await log.close();

  const files = await readdir(dir, { recursive: true });
  expect(files).toContain("session.jsonl");
  for (const file of files) {
    expect(await readFile(join(dir, file), "utf8")).not.toContain(API_KEY);
  }
});
