import { fileURLToPath } from "node:url";
import { stdioServerCommand } from "dsh-testkit/mcp-server";
import { describe, expect, it } from "vitest";
import { connectServer, serverName, type McpServerSpec } from "./connection.js";
import { ToolRegistry, type ToolContext } from "dsh-agent";
import { connectMcpServers } from "./tool-set.js";

/** The paged test server (see `test-support/paged-server.ts`), offering `names`, then `next` once its tool `change` is called. */
function pagedSpec(names?: string, next?: { readonly tools: string; readonly when?: "later" }, env: Readonly<Record<string, string>> = {}): McpServerSpec {
  const { command, args } = stdioServerCommand();
  return {
    name: "paged",
    command,
    args: [args[0]!, args[1]!, fileURLToPath(new URL("./test-support/paged-server.ts", import.meta.url))],
    env: {
      PATH: process.env.PATH ?? "",
      ...(names === undefined ? {} : { DSH_MCP_TOOLS: names }),
      ...(next === undefined ? {} : { DSH_MCP_TOOLS_NEXT: next.tools, ...(next.when === undefined ? {} : { DSH_MCP_CHANGE: next.when }) }),
      ...env,
    },
  };
}

const context = (): ToolContext => ({ callId: "c1", turn: 0, step: 0, index: 0, signal: new AbortController().signal });

/** Connects the paged server, attaches its tools to a registry, and calls its tool `change`. */
async function changed(names: string, next: { readonly tools: string; readonly when?: "later" }) {
  const problems: string[] = [];
  const tools = await connectMcpServers([pagedSpec(names, next)], { onProblem: (line) => problems.push(line) });
  const registry = new ToolRegistry();
  tools.attach(registry);
  const result = await registry.get("change")!.invoke("{}", context());
  return { tools, registry, result, problems, names: () => registry.list().map((tool) => tool.schema.name) };
}

describe("serverName", () => {
  it("is the given name, else the command with its arguments, else the URL's host (the URL itself when it is none)", () => {
    expect(serverName({ name: "fs", command: "x" })).toBe("fs");
    expect(serverName({ command: "npx", args: ["-y", "server-fs"] })).toBe("npx -y server-fs");
    expect(serverName({ command: "server-fs" })).toBe("server-fs");
    expect(serverName({ url: "http://127.0.0.1:3000/mcp" })).toBe("127.0.0.1:3000");
    expect(serverName({ url: "not a url" })).toBe("not a url");
  });
});

describe("connectServer", () => {
  it("names the last line a stdio server wrote before it failed to start, and nothing when it wrote none", async () => {
    const failing = (script: string): McpServerSpec => ({ name: "broken", command: process.execPath, args: ["-e", script] });
    await expect(connectServer(failing("process.stderr.write('loading\\nno config file\\n'); process.exit(3)"), () => undefined, () => undefined)).rejects.toMatchObject({
      code: "MCP_CONNECT",
      message: expect.stringMatching(/^cannot connect to MCP server broken: .+ \(it wrote: no config file\)$/),
    });
    const silent = connectServer(failing("process.exit(3)"), () => undefined, () => undefined);
    await expect(silent).rejects.toMatchObject({ code: "MCP_CONNECT" });
    await expect(silent).rejects.not.toThrow(/it wrote/);
  });
});

describe("a server's tool list", () => {
  it("is read page by page, every page of it", async () => {
    const tools = await connectMcpServers([pagedSpec()]);
    try {
      expect(tools.tools.map((tool) => tool.schema)).toEqual(["first", "second", "third"].map((name) => ({ name, description: `Tool ${name}.`, parameters: { type: "object" } })));
    } finally {
      await tools.close();
    }
  });

  it("is read again over every page when the server announces a change, not just its first", async () => {
    const { tools, names } = await changed("change,a", { tools: "change,b,c,d", when: "later" });
    try {
      await expect.poll(names).toEqual(["change", "b", "c", "d"]);
      expect(tools.tools.map((tool) => tool.schema.name)).toEqual(["change", "b", "c", "d"]);
    } finally {
      await tools.close();
    }
  });

  it("takes in a schema changed under the same names, as a change for the next step", async () => {
    const { tools, registry } = await changed("change,a,b", { tools: "change,a,b+path" });
    try {
      expect(registry.get("b")!.schema.parameters).toEqual({ type: "object", properties: { path: { type: "string" } } });
      expect(registry.get("a")!.schema.parameters).toEqual({ type: "object" });
    } finally {
      await tools.close();
    }
  });

  it("never turns a completed call into a failure when the new list is bad, and keeps the previous tools whole", async () => {
    for (const [next, why] of [
      ["change,x,y,x", "it offers x twice"],
      ["change,x,not fine", "MCP server paged offers tool not fine, which dsh cannot offer: name: tool names are 1-64 characters of [A-Za-z0-9_-]"],
    ] as const) {
      const { tools, result, problems, names } = await changed("change,a,b", { tools: next });
      try {
        expect(result).toEqual({ content: [{ type: "text", text: "called change" }], isError: false, additionalContexts: [] });
        expect(names()).toEqual(["change", "a", "b"]);
        expect(tools.tools.map((tool) => tool.schema.name)).toEqual(["change", "a", "b"]);
        expect(problems).toContain(`MCP server paged's new tool list is refused, its tools kept as they were: ${why}`);
      } finally {
        await tools.close();
      }
    }
  });

  it("refuses a tool whose name a model cannot take, naming the server and the rule", async () => {
    await expect(connectMcpServers([pagedSpec("fine,not fine")])).rejects.toMatchObject({
      code: "MCP_INVALID_TOOL",
      message: "MCP server paged offers tool not fine, which dsh cannot offer: name: tool names are 1-64 characters of [A-Za-z0-9_-]",
    });
  });
});

describe("what dsh refuses of a server, said as dsh's refusal", () => {
  it("closes the connection on a result larger than it takes, and says so to the model and the person", async () => {
    const problems: string[] = [];
    const tools = await connectMcpServers([{ ...pagedSpec("big", undefined, { DSH_MCP_RESULT_BYTES: "5000" }), maxMessageBytes: 2000 }], { onProblem: (line) => problems.push(line) });
    try {
      const outcome = await tools.tools[0]!.invoke("{}", context());
      const refusal = "dsh refused a message of more than 2000 bytes from it (a result that large is not taken) and closed the connection";
      expect(outcome).toMatchObject({ isError: true, content: [{ type: "text", text: `Error [TOOL_FAILED]: MCP server paged could not complete the call: ${refusal}` }] });
      await expect.poll(() => problems).toContain(`MCP server paged: ${refusal}; its tools now answer with an error`);
      expect(problems).toContain(`MCP server paged: big failed: ${refusal}`);
    } finally {
      await tools.close();
    }
  });

  it("refuses a tool whose input schema nests deeper than dsh takes, in one readable line", async () => {
    const refused = await connectMcpServers([pagedSpec("deep,other", undefined, { DSH_MCP_DEEP: "600" })]).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused).toMatchObject({ code: "MCP_INVALID_TOOL", message: expect.stringMatching(/^MCP server paged offers tool deep, which dsh cannot offer: parameters: \$\.properties\.inner.{40,}….{40,}: nests deeper than 512 levels$/) });
    expect(refused!.message.length).toBeLessThan(300);
  });
});

describe("whether a server's tools may run again after a crash", () => {
  it("follows each tool's annotations (it only reads, or it is idempotent), and the spec's word over them", async () => {
    const annotations = JSON.stringify({ reads: { readOnlyHint: true }, idem: { idempotentHint: true, destructiveHint: true }, writes: { destructiveHint: true, idempotentHint: false } });
    const spec = pagedSpec("reads,idem,writes,plain", undefined, { DSH_MCP_ANNOTATIONS: annotations });
    for (const [given, expected] of [
      [undefined, [true, true, false, false]],
      [true, [true, true, true, true]],
      [false, [false, false, false, false]],
    ] as const) {
      const tools = await connectMcpServers([{ ...spec, ...(given === undefined ? {} : { safeToRerun: given }) }]);
      try {
        expect(tools.tools.map((tool) => tool.safeToRerun)).toEqual(expected);
      } finally {
        await tools.close();
      }
    }
  });
});
