import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHttpServer, stdioServerCommand } from "dsh-testkit/mcp-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { splitCommand } from "./mcp-tools.js";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-mcp-cli-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const quoted = (words: readonly string[]) => words.map((word) => `"${word}"`).join(" ");
const stdio = () => { const { command, args } = stdioServerCommand(); return quoted([command, ...args]); };

async function scenario(name: string, responses: object[]): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ responses }));
  return path;
}

describe("dsh run with MCP servers", () => {
  it("offers a stdio and an HTTP server's tools beside its own, keeps them on resume, and rebuilds every body byte for byte", async () => {
    const http = await startHttpServer();
    try {
      const log = join(dir, "s.jsonl");
      const wire = join(dir, "wire.jsonl");
      const first = await scenario("one.json", [{ toolCalls: [{ name: "echo", arguments: { text: "hi" } }, { name: "list_dir", arguments: { path: "." } }] }, { text: "Done." }]);
      const run = await runCli(["run", "--scenario", first, "--record-wire", wire, "--mcp", stdio(), "--log", log, "go"], { cwd: dir });
      expect(run.stderr).toContain("turn 0 completed after 2 step(s)");
      const second = await scenario("two.json", [{ toolCalls: [{ name: "web_add", arguments: { a: 1, b: 2 } }] }, { text: "Three." }]);
      // On resume the same server is named again; a new HTTP server with a prefix is added: a logged change of tools.
      const resumed = await runCli(["resume", log, "--scenario", second, "--record-wire", wire, "--mcp", stdio(), "--mcp-url", `web_=${http.url}`, "again"], { cwd: dir });
      expect(resumed).toMatchObject({ code: 0, stdout: "Three.\n" });
      const results = (await readFile(log, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { type: string; data: { content?: { text: string }[]; reason?: string } });
      expect(results.filter((event) => event.type === "tool/result").map((event) => event.data.content![0]!.text)).toEqual(["echo: hi", ".", '{"sum":3}'].map((text, i) => (i === 1 ? expect.any(String) : text)));
      expect(results.filter((event) => event.type === "request/header").map((event) => event.data.reason)).toEqual(["initial", "resume"]);
      const recorded = (await readFile(wire, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as string);
      expect(JSON.parse(recorded[0]!).tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(["list_dir", "read_file", "echo", "add", "picture", "slow", "count", "where", "fail", "crash", "grow"]);
      expect((await runCli(["requests", log, "--wire"], { cwd: dir })).stdout).toBe(recorded.map((body) => `${body}\n`).join(""));
    } finally {
      await http.close();
    }
  }, 60_000);

  it("ends a call to a server that crashed in an error result the model reads, and one line for the person", async () => {
    const log = join(dir, "crash.jsonl");
    const crash = await scenario("crash.json", [{ toolCalls: [{ name: "crash", arguments: {} }] }, { text: "It crashed." }]);
    const run = await runCli(["run", "--scenario", crash, "--mcp", stdio(), "--log", log, "crash it"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/dsh: mcp: MCP server .* crash failed: .*\(it wrote: crashing on purpose\)\n/);
    const result = (await readFile(log, "utf8")).split("\n").map((line) => (line === "" ? undefined : (JSON.parse(line) as { type: string; data: { isError?: boolean; content?: { text: string }[] } }))).find((event) => event?.type === "tool/result");
    expect(result?.data).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error \[TOOL_FAILED\]: MCP server .* could not complete the call/) }] });
  }, 60_000);

  it("refuses a server whose tools collide with the built-in ones or with another server's, and one it cannot start", async () => {
    expect(await runCli(["run", "--mcp", stdio(), "--mcp", stdio(), "--log", join(dir, "x.jsonl"), "hi"], { cwd: dir })).toMatchObject({ code: 2, stderr: expect.stringMatching(/^dsh: mcp: MCP server .* offers echo, as does MCP server .*: give one of the servers a prefix\n$/) });
    // A tool server that cannot start has its own exit code: 5 is a provider that cannot be reached.
    expect(await runCli(["run", "--mcp", "/nonexistent/server --flag", "--log", join(dir, "y.jsonl"), "hi"], { cwd: dir })).toMatchObject({ code: 7, stderr: expect.stringMatching(/^dsh: mcp: cannot connect to MCP server \/nonexistent\/server --flag: /) });
    expect(await runCli(["run", "--mcp", stdio(), "--mcp-safe-to-rerun", "nobody", "--log", join(dir, "w.jsonl"), "hi"], { cwd: dir })).toMatchObject({
      code: 2,
      stderr: "dsh: --mcp-safe-to-rerun nobody names no --mcp or --mcp-url server (name one by its PREFIX, or its command line or URL as given)\n",
    });
    expect(await runCli(["run", "--mcp-url", "not a url", "--log", join(dir, "z.jsonl"), "hi"], { cwd: dir })).toMatchObject({ code: 2, stderr: "dsh: --mcp-url not a url is not a URL\n" });
    expect(await runCli(["run", "--mcp", "  ", "--log", join(dir, "z.jsonl"), "hi"], { cwd: dir })).toMatchObject({ code: 2 });
  }, 60_000);
});

describe("splitCommand", () => {
  it("takes a tool name prefix before a command or a URL", async () => {
    const run = await runCli(["run", "--mcp", `two_=${stdio()}`, "--mcp", stdio(), "--scenario", await scenario("p.json", [{ toolCalls: [{ name: "two_echo", arguments: { text: "p" } }] }, { text: "ok" }]), "--log", join(dir, "p.jsonl"), "hi"], { cwd: dir });
    expect(run.code).toBe(0);
    expect(await readFile(join(dir, "p.jsonl"), "utf8")).toContain("echo: p");
  }, 60_000);

  it("splits on whitespace and keeps quoted words whole", () => {
    expect(splitCommand(`npx  -y "my server" 'a b' c"`)).toEqual(["npx", "-y", "my server", "a b", 'c"']);
    expect(splitCommand("")).toEqual([]);
  });
});
