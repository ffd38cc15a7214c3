import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LlmCallConfig } from "dsh-llm";
import { EventLog, EventRegistry, readJsonlLog } from "dsh-log";
import { serializeEventLine, serializeHeaderLine } from "dsh-log/store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { registerHeaderEvents } from "./register.js";
import { foldRequestHeader, requestHeaderEvent } from "./snapshot.js";

const config: LlmCallConfig = { provider: "deepseek", model: "deepseek-chat" };
const tool = { name: "read_file", description: "Read a file", parameters: { type: "object" } };
const headerLog = () => new EventLog({ registry: registerHeaderEvents(new EventRegistry()) });

describe("request/header admission", () => {
  it.each([
    ["a header.system field", { reason: "initial", header: { config, system: "You are" } }, /^request\/header: header\.system: header\.system is not allowed: the rendered system prompt is the system\/message at surface node 0$/],
    ["tools: []", { reason: "initial", header: { config, tools: [] } }, /^request\/header: header\.tools: tools: \[\] is never written: omit tools when there are none$/],
    ["adapterDefaults: {}", { reason: "initial", header: { config, adapterDefaults: {} } }, /^request\/header: header\.adapterDefaults: adapterDefaults: \{\} is never written: omit it when no value came from adapter defaults$/],
    [
      "adapterDefaults that disagree with the config",
      { reason: "initial", header: { config: { ...config, maxTokens: 100 }, adapterDefaults: { maxTokens: 8192 } } },
      /^request\/header: header\.adapterDefaults\.maxTokens: adapterDefaults\.maxTokens \(8192\) must equal config\.maxTokens \(100\)$/,
    ],
    ["wire: {}", { reason: "initial", header: { config, wire: {} } }, /^request\/header: header\.wire: wire: \{\} is never written: omit it when the adapter declares no wire profile$/],
    ["a wire profile that is not an object", { reason: "initial", header: { config, wire: "deepseek" } }, /wire/],
    ["a tool listed twice", { reason: "initial", header: { config, tools: [tool, tool] } }, /^request\/header: header\.tools: tool read_file is listed twice$/],
    ["startsSeries: false", { reason: "change", startsSeries: false, header: { config } }, /^request\/header: startsSeries: startsSeries: false is never written: omit it$/],
    ["startsSeries on a series snapshot", { reason: "series", startsSeries: true, header: { config } }, /^request\/header: startsSeries: startsSeries is only written on a change snapshot \(a series snapshot starts a series by definition\)$/],
    ["data that is not an object", null, /^request\/header: Invalid input: expected object, received null$/],
    ["data that is a string", "initial", /^request\/header: Invalid input: expected object, received string$/],
    ["a header that is not an object", { reason: "initial", header: [config] }, /^request\/header: header: Invalid input: expected object, received array$/],
    ["an unknown reason", { reason: "restart", header: { config } }, /reason/],
    ["an unknown config key", { reason: "initial", header: { config: { ...config, apiKey: "k" } } }, /apiKey/],
    ["an unknown header key", { reason: "initial", header: { config, note: "x" } }, /note/],
    ["an unknown snapshot key", { reason: "initial", header: { config }, note: "x" }, /note/],
    ["an unknown tool key", { reason: "initial", header: { config, tools: [{ ...tool, strict: true }] } }, /strict/],
    ["an unknown adapterDefaults key", { reason: "initial", header: { config: { ...config, temperature: 1 }, adapterDefaults: { temperature: 1 } } }, /temperature/],
  ])("rejects %s and never repairs it", async (_what, data, message) => {
    const log = headerLog();
    const rejection = log.append({ type: "request/header", data });
    await expect(rejection).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
    await expect(rejection).rejects.toThrow(message);
  });

  it("rejects the retired fallback reason and header deltas as legacy", async () => {
    const log = headerLog();
    await expect(log.append({ type: "request/header", data: { reason: "fallback", header: { config } } })).rejects.toThrowError(
      expect.objectContaining({ code: "LOG_LEGACY_EVENT", message: "request/header: reason fallback is retired: use initial, resume, change or series" }),
    );
    await expect(log.append({ type: "request/header-delta", data: { set: {} } })).rejects.toThrowError(
      expect.objectContaining({
        code: "LOG_LEGACY_EVENT",
        message: "request/header-delta: a retired event type: headers are logged as full request/header snapshots",
      }),
    );
    // Only the fallback reason is retired: other snapshots (and data of any shape) reach admission.
    await expect(log.append({ type: "request/header", data: null })).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
    await expect(log.append({ type: "request/header", data: undefined })).rejects.toMatchObject({ code: "LOG_INVALID_EVENT" });
    await expect(log.append({ type: "request/header", data: { reason: "resume", header: { config } } })).rejects.toMatchObject({ code: "LOG_RULE_VIOLATION" });
  });

  it("requires initial first and only first", async () => {
    const log = headerLog();
    await expect(log.append(requestHeaderEvent.input({ reason: "resume", header: { config } }))).rejects.toThrowError(
      expect.objectContaining({ code: "LOG_RULE_VIOLATION", message: "request/header at seq 0: the first snapshot must be initial, not resume" }),
    );
    await log.append(requestHeaderEvent.input({ reason: "initial", header: { config } }));
    await expect(log.append(requestHeaderEvent.input({ reason: "initial", header: { config } }))).rejects.toThrowError(
      expect.objectContaining({ code: "LOG_RULE_VIOLATION", message: "request/header at seq 1: initial is only the first snapshot; later instances write resume" }),
    );
    await log.append(requestHeaderEvent.input({ reason: "change", startsSeries: true, header: { config: { ...config, model: "x" } } }));
  });

  it("keeps stop: [], nested extensions and their key order exactly", async () => {
    const log = headerLog();
    const header = { config: { ...config, stop: [], extensions: { z: { nested: [{ b: 1, a: 2 }] }, a: null } } };
    const [event] = await log.append(requestHeaderEvent.input({ reason: "initial", header }));
    expect(serializeEventLine(event!)).toContain('"config":{"provider":"deepseek","model":"deepseek-chat","stop":[],"extensions":{"z":{"nested":[{"b":1,"a":2}]},"a":null}}');
  });

  it("rejects legacy snapshots on load too, naming the line", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-header-"));
    try {
      const path = join(dir, "legacy.jsonl");
      await writeFile(
        path,
        serializeHeaderLine({ format: "dsh-log", version: 1, sessionId: "s", createdAt: 0 }) +
          serializeEventLine({ seq: 0, type: "request/header", time: 0, data: { reason: "initial", header: { config } } }) +
          serializeEventLine({ seq: 1, type: "request/header", time: 0, data: { reason: "fallback", header: { config } } }),
      );
      await expect(readJsonlLog(path, registerHeaderEvents(new EventRegistry()))).rejects.toMatchObject({
        code: "LOG_LEGACY_EVENT",
        line: 3,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("foldRequestHeader", () => {
  it("selects the latest snapshot of any prefix", async () => {
    const reason = fc.constantFrom("resume" as const, "change" as const, "series" as const);
    const model = fc.constantFrom("a", "b", "c");
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(reason, model, fc.boolean()), { maxLength: 20 }), async (steps) => {
        const log = new EventLog({ registry: registerHeaderEvents(new EventRegistry()).ignore("ui/") });
        await log.append(requestHeaderEvent.input({ reason: "initial", header: { config } }));
        for (const [why, m, noise] of steps) {
          if (noise) await log.append({ type: "ui/ignored", data: null });
          await log.append(requestHeaderEvent.input({ reason: why, header: { config: { ...config, model: m } } }));
        }
        const events = log.slice();
        for (let length = 1; length <= events.length; length++) {
          const prefix = events.slice(0, length);
          const last = prefix.filter((event) => requestHeaderEvent.is(event)).at(-1);
          expect(foldRequestHeader(prefix)).toBe(last?.data);
        }
        expect(foldRequestHeader([])).toBeUndefined();
        // Noise really was logged between snapshots, and the live O(1) read agrees with the fold.
        expect(events.filter((event) => event.type === "ui/ignored")).toHaveLength(steps.filter(([, , noise]) => noise).length);
        expect(foldRequestHeader(log)).toBe(foldRequestHeader(events));
      }),
      { numRuns: 50 },
    );
  });
});
