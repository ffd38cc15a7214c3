import { ToolRegistry, type AgentTool, type ToolContext } from "dsh-agent";
import { MemoryAttachmentStore } from "dsh-attachments";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpError } from "./errors.js";
import { startHttpServer } from "dsh-testkit/mcp-server";
import { stdioSpec } from "./test-support/stdio-spec.js";
import { connectMcpServers, type McpTools } from "./tool-set.js";

const open: McpTools[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const tools of open.splice(0)) await tools.close();
  for (const close of closers.splice(0)) await close();
});

async function connect(...args: Parameters<typeof connectMcpServers>): Promise<McpTools> {
  const tools = await connectMcpServers(...args);
  open.push(tools);
  return tools;
}

const context = (signal = new AbortController().signal): ToolContext => ({ callId: "c1", turn: 0, step: 0, index: 0, signal });
const named = (tools: McpTools, name: string): AgentTool => tools.tools.find((tool) => tool.schema.name === name)!;

describe("MCP tools over stdio", () => {
  it("offers each tool with its name, description and input schema exactly as the server gave them", async () => {
    const tools = await connect([stdioSpec()]);
    expect(tools.tools.map((tool) => tool.schema.name)).toEqual(["echo", "add", "picture", "slow", "count", "where", "fail", "crash", "grow"]);
    expect(named(tools, "echo").schema).toEqual({
      name: "echo",
      description: "Echo the text back.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], $schema: "http://json-schema.org/draft-07/schema#" },
    });
  });

  it("turns results into tool results: text, structured content as JSON, images through the attachment store, errors as errors", async () => {
    const attachments = new MemoryAttachmentStore();
    const tools = await connect([stdioSpec()], { attachments });
    expect(await named(tools, "echo").invoke('{"text":"hi"}', context())).toEqual({ content: [{ type: "text", text: "echo: hi" }], isError: false, additionalContexts: [] });
    expect((await named(tools, "add").invoke('{"a":2,"b":3}', context())).content).toEqual([{ type: "text", text: '{"sum":5}' }]);
    const picture = await named(tools, "picture").invoke("", context());
    expect(picture.content).toEqual([{ type: "text", text: "here:" }, { type: "image", image: expect.objectContaining({ mediaType: "image/png", width: 1, height: 1 }) }]);
    expect((await named(tools, "fail").invoke("{}", context())).isError).toBe(true);
    expect((await named(tools, "echo").invoke("{oops", context())).content[0]).toMatchObject({ text: expect.stringMatching(/^Error \[TOOL_INVALID_JSON\]/) });
    expect((await named(tools, "echo").invoke("[1]", context())).content[0]).toMatchObject({ text: "Error [TOOL_INVALID_ARGUMENTS]: arguments must be a JSON object" });
    const withoutStore = await connect([stdioSpec()]);
    expect((await named(withoutStore, "picture").invoke("{}", context())).content[1]).toEqual({ type: "text", text: "[image/png image, 70 bytes: no attachment store to keep it]" });
  });

  it("gives the model an error result and the person one line when a call times out, or the server dies mid-call", async () => {
    const problems: string[] = [];
    const tools = await connect([stdioSpec({ name: "test", callTimeoutMs: 300 })], { onProblem: (line) => problems.push(line) });
    const slow = await named(tools, "slow").invoke('{"ms":5000}', context());
    expect(slow).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error \[TOOL_FAILED\]: MCP server test could not complete the call: .*timed out/i) }] });
    // The server wrote nothing to standard error yet, so the line quotes nothing.
    expect(problems).toEqual([expect.stringMatching(/^MCP server test: slow failed: .*timed out/i)]);
    expect(problems[0]).not.toContain("it wrote");
    const crash = await named(tools, "crash").invoke("{}", context());
    expect(crash).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/^Error \[TOOL_FAILED\]: MCP server test could not complete the call/) }] });
    expect(problems.some((line) => /^MCP server test: crash failed: .*\(it wrote: crashing on purpose\)$/.test(line))).toBe(true);
    await expect.poll(() => problems.some((line) => line === "MCP server test closed the connection: its tools now answer with an error")).toBe(true);
    expect((await named(tools, "echo").invoke('{"text":"x"}', context())).content[0]).toMatchObject({ text: "Error [TOOL_FAILED]: MCP server test could not complete the call: the server is no longer running" });
  });

  it("passes the server's progress notifications to the call's progress reporter", async () => {
    const tools = await connect([stdioSpec()]);
    const updates: unknown[] = [];
    const outcome = await named(tools, "count").invoke('{"n":3}', { ...context(), reportProgress: (update) => updates.push(update) });
    expect(outcome.content[0]).toMatchObject({ text: "counted to 3" });
    expect(updates).toEqual([1, 2, 3].map((progress) => ({ progress, total: 3, message: `step ${progress}` })));
  });

  it("starts the server in the directory and with the environment the spec gives", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-mcp-where-"));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const tools = await connect([stdioSpec({ cwd: dir, env: { DSH_MCP_TEST: "given", PATH: process.env.PATH ?? "" } })]);
    expect((await named(tools, "where").invoke("{}", context())).content[0]).toMatchObject({ text: `${await realpath(dir)}|given` });
    const plain = await connect([stdioSpec()]);
    expect((await named(plain, "where").invoke("{}", context())).content[0]).toMatchObject({ text: `${process.cwd()}|-` });
  });

  it("takes empty or blank arguments as no arguments, and refuses any JSON that is not an object", async () => {
    const tools = await connect([stdioSpec()]);
    for (const blank of ["", "  \n"]) expect((await named(tools, "where").invoke(blank, context())).isError).toBe(false);
    for (const other of ["null", "5", '"text"', "[]"]) expect((await named(tools, "where").invoke(other, context())).content[0]).toMatchObject({ text: "Error [TOOL_INVALID_ARGUMENTS]: arguments must be a JSON object" });
  });

  it("says nothing of a server it stopped itself, nor of one connected before another failed", async () => {
    const problems: string[] = [];
    const tools = await connectMcpServers([stdioSpec()], { onProblem: (line) => problems.push(line) });
    await tools.close();
    await expect(connectMcpServers([stdioSpec({ name: "first" }), { command: "/nonexistent/dsh-mcp-server" }], { onProblem: (line) => problems.push(line) })).rejects.toMatchObject({ code: "MCP_CONNECT" });
    // Closing waits for the connections to end, so a report of their end would be in by now.
    expect(problems).toEqual([]);
  });

  it("reports an aborted call as aborted", async () => {
    const tools = await connect([stdioSpec()]);
    const controller = new AbortController();
    const pending = named(tools, "slow").invoke('{"ms":5000}', context(controller.signal));
    setTimeout(() => controller.abort(), 100);
    expect((await pending).content[0]).toMatchObject({ text: "Error [TOOL_ABORTED]: the call was aborted" });
  });
});

describe("MCP tools over Streamable HTTP", () => {
  it("calls tools, and picks up a changed tool list into the registry for the next step", async () => {
    const server = await startHttpServer();
    closers.push(() => server.close());
    const tools = await connect([{ url: server.url }]);
    const registry = new ToolRegistry();
    tools.attach(registry);
    expect(await named(tools, "echo").invoke('{"text":"over http"}', context())).toMatchObject({ content: [{ text: "echo: over http" }] });
    expect(registry.get("extra")).toBeUndefined();
    await named(tools, "grow").invoke("{}", context());
    // Read again before the call's result returns, whenever the server's notification arrives.
    expect(registry.get("extra")?.schema.description).toBe("A tool that came later.");
    expect(registry.list().map((tool) => tool.schema.name)).toEqual(["echo", "add", "picture", "slow", "count", "where", "fail", "crash", "grow", "extra"]);
  });

  it("sends the spec's headers, and leaves out a new tool whose name another tool holds, saying so", async () => {
    const server = await startHttpServer();
    closers.push(() => server.close());
    const problems: string[] = [];
    const tools = await connect([{ url: server.url, headers: { authorization: "Bearer t0ken" }, name: "web" }], { onProblem: (line) => problems.push(line) });
    expect(server.authorizations.length).toBeGreaterThan(0);
    expect(new Set(server.authorizations)).toEqual(new Set(["Bearer t0ken"]));
    const builtIn: AgentTool = { schema: { name: "extra", description: "mine", parameters: {} }, invoke: async () => ({ content: [], isError: false, additionalContexts: [] }) };
    const registry = new ToolRegistry([builtIn]);
    tools.attach(registry);
    await named(tools, "grow").invoke("{}", context());
    await expect.poll(() => problems).toContain("MCP server web now offers extra, which another tool holds: left out");
    expect(registry.get("extra")).toBe(builtIn);
    expect(tools.tools.map((tool) => tool.schema.name)).not.toContain("extra");
  });
});

describe("connecting", () => {
  it("refuses names two servers, or a server and a built-in tool, both offer; a prefix tells them apart", async () => {
    await expect(connectMcpServers([stdioSpec(), stdioSpec({ name: "second" })])).rejects.toMatchObject({ code: "MCP_NAME_COLLISION", message: "MCP server second offers echo, as does MCP server " + stdioSpec().command + " " + stdioSpec().args!.join(" ") + ": give one of the servers a prefix" });
    await expect(connectMcpServers([stdioSpec({ name: "s" })], { reservedNames: ["read_file", "echo"] })).rejects.toMatchObject({ code: "MCP_NAME_COLLISION", message: "MCP server s offers echo, as does a built-in tool: give one of the servers a prefix" });
    const tools = await connect([stdioSpec(), stdioSpec({ prefix: "two_" })], { reservedNames: ["read_file"] });
    expect(tools.tools.map((tool) => tool.schema.name)).toContain("two_echo");
    expect((await named(tools, "two_echo").invoke('{"text":"b"}', context())).content[0]).toMatchObject({ text: "echo: b" });
  });

  it("refuses a spec with neither or both of a command and a URL, and names a server it cannot start or reach", async () => {
    await expect(connectMcpServers([{}])).rejects.toMatchObject({ code: "MCP_INVALID_SERVER", message: "an MCP server needs a command or a URL, not neither" });
    await expect(connectMcpServers([{ command: "x", url: "http://127.0.0.1:9/mcp" }])).rejects.toMatchObject({ code: "MCP_INVALID_SERVER", message: "an MCP server needs a command or a URL, not both" });
    await expect(connectMcpServers([{ command: "/nonexistent/dsh-mcp-server" }])).rejects.toMatchObject({ code: "MCP_CONNECT", message: expect.stringMatching(/^cannot connect to MCP server \/nonexistent\/dsh-mcp-server: /) });
    await expect(connectMcpServers([{ url: "http://127.0.0.1:9/mcp" }])).rejects.toThrow(McpError);
    await expect(connectMcpServers([{ url: "http://127.0.0.1:9/mcp", name: "down" }])).rejects.toMatchObject({ message: expect.stringMatching(/^cannot connect to MCP server down: /) });
  });
});
