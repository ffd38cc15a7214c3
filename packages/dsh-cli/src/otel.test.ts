import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "dsh-testkit/otlp-receiver";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
const receivers: OtlpReceiver[] = [];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-otel-cli-"));
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  await rm(dir, { recursive: true, force: true });
});

async function receiver(): Promise<OtlpReceiver> {
  const started = await startOtlpReceiver();
  receivers.push(started);
  return started;
}

async function scenario(name: string, responses: object[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

async function recordedLog(): Promise<string> {
  const log = join(dir, "s.jsonl");
  const steps = await scenario("one.json", [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "Done." }]);
  expect((await runCli(["run", "--scenario", steps, "--log", log, "Look around."], { cwd: dir })).code).toBe(0);
  return log;
}

const events = async (log: string) => (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: { usage?: { cacheReadTokens: number; inputTokens: number } } });
const key = (span: ReceivedSpan) => span.spanId;
const sorted = (spans: readonly ReceivedSpan[]) => [...spans].sort((a, b) => (key(a) < key(b) ? -1 : 1));

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("dsh otel", () => {
  it("sends one span per request, tool call and turn, with the log's cache tokens, each request's wire hash, and no content", async () => {
    const log = await recordedLog();
    const otlp = await receiver();
    const run = await runCli(["otel", log, "--endpoint", otlp.url, "--protocol", "http/json"], { cwd: dir });
    expect(run).toMatchObject({ code: 0, stdout: "" });
    const logged = (await events(log)).slice(1);
    const sessionId = JSON.parse((await readFile(log, "utf8")).split("\n")[0]!).sessionId as string;
    expect(run.stderr).toBe(`sent 4 span(s) of session ${sessionId} to ${otlp.url}/v1/traces\n`);
    expect(otlp.spans.map((span) => span.name)).toEqual(["execute_tool list_dir", "chat deepseek-v4-flash", "chat deepseek-v4-flash", "invoke_agent"].map((name) => (name.startsWith("chat") ? expect.stringMatching(/^chat /) : name)));
    const chats = otlp.spans.filter((span) => span.attributes["gen_ai.operation.name"] === "chat");
    const usage = logged.filter((event) => event.type === "step/end").map((event) => event.data.usage!);
    expect(chats.map((span) => span.attributes["gen_ai.usage.cache_read.input_tokens"])).toEqual(usage.map((u) => u.cacheReadTokens));
    expect(chats.map((span) => span.attributes["gen_ai.usage.input_tokens"])).toEqual(usage.map((u) => u.inputTokens));
    // The share the provider reported reading, beside the share its cache rules read for the logged request.
    expect(chats.map((span) => span.attributes["dsh.cache.read_share"])).toEqual(usage.map((u) => u.cacheReadTokens / u.inputTokens));
    expect(chats.map((span) => span.attributes["dsh.cache.expected_read_share"])).toEqual([0, expect.any(Number)]);
    const bodies = (await runCli(["requests", log, "--wire"], { cwd: dir })).stdout.trim().split("\n");
    expect(chats.map((span) => span.attributes["dsh.request.wire_hash"])).toEqual(bodies.map((body) => `sha256:${createHash("sha256").update(body).digest("hex")}`));
    expect(otlp.spans.every((span) => span.attributes["gen_ai.conversation.id"] === sessionId && span.serviceName === "dsh")).toBe(true);
    expect(JSON.stringify(otlp.spans.map((span) => span.attributes))).not.toContain("Look around.");
    // Exported again: the same ids, so a backend keeps one copy.
    const again = await receiver();
    await runCli(["otel", log, "--endpoint", again.url], { cwd: dir });
    expect(sorted(again.spans).map(key)).toEqual(sorted(otlp.spans).map(key));
  });

  it("follows a session live and sends the spans an export of the finished log sends", async () => {
    const log = await recordedLog();
    const live = await receiver();
    const stop = new AbortController();
    const following = runCli(["otel", log, "--endpoint", live.url, "--follow"], { cwd: dir, signal: stop.signal });
    await until(() => live.spans.length === 4);
    const more = await scenario("two.json", [{ text: "Still here." }]);
    expect((await runCli(["resume", log, "--scenario", more, "And now?"], { cwd: dir })).code).toBe(0);
    await until(() => live.spans.length === 6);
    stop.abort();
    expect((await following).code).toBe(130);
    const after = await receiver();
    expect((await runCli(["otel", log, "--endpoint", after.url], { cwd: dir })).code).toBe(0);
    expect(sorted(live.spans)).toEqual(sorted(after.spans));
    const resumed = live.spans.find((span) => span.name === "invoke_agent" && span.attributes["dsh.turn"] === 1)!;
    expect(resumed.links.map((link) => link.attributes["dsh.link.reason"])).toEqual(["resume"]);
  });

  it("reads the standard OTEL_* variables, and puts the messages on spans only with --content", async () => {
    const log = await recordedLog();
    const otlp = await receiver();
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_HEADERS: "authorization=Basic%20abc,x-team=agents", OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_SERVICE_NAME: "harness" };
    expect((await runCli(["otel", log, "--content"], { cwd: dir, env })).code).toBe(0);
    expect(otlp.requests.map((request) => [request.contentType, request.headers.authorization, request.headers["x-team"]])).toEqual([["application/json", "Basic abc", "agents"]]);
    expect(otlp.spans.every((span) => span.serviceName === "harness")).toBe(true);
    const chat = otlp.spans.find((span) => span.attributes["gen_ai.operation.name"] === "chat")!;
    expect(JSON.parse(chat.attributes["gen_ai.input.messages"] as string)).toEqual([{ role: "user", parts: [{ type: "text", content: "Look around." }] }]);
  });

  it("refuses a bad protocol or endpoint in one line, and reports a receiver it cannot reach", async () => {
    const log = await recordedLog();
    expect(await runCli(["otel", log, "--protocol", "grpc"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: --protocol must be http/protobuf or http/json, not grpc\n" });
    expect(await runCli(["otel", log, "--endpoint", "localhost:4318"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: export: the OTLP endpoint localhost:4318 is not an http(s) URL [OTEL_INVALID_OPTIONS]\n" });
    const gone = await startOtlpReceiver();
    await gone.close();
    const run = await runCli(["otel", log, "--endpoint", gone.url], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^dsh: export: the OTLP receiver did not take 4 span\(s\): .+ \[OTEL_EXPORT_FAILED\]\n$/);
  });

  it("never prints the credentials an endpoint URL carries", async () => {
    const log = await recordedLog();
    const otlp = await receiver();
    const endpoint = otlp.url.replace("http://", "http://user:s3cret-pass@");
    const run = await runCli(["otel", log, "--endpoint", endpoint], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ to http:\/\/user:\*\*\*@127\.0\.0\.1:\d+\/v1\/traces\n$/);
    expect(run.stderr).not.toContain("s3cret-pass");
  });
});
