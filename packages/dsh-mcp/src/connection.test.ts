import { fileURLToPath } from "node:url";
import { stdioServerCommand } from "dsh-testkit/mcp-server";
import { describe, expect, it } from "vitest";
import { connectServer, serverName, type McpServerSpec } from "./connection.js";
import { connectMcpServers } from "./tool-set.js";

/** The paged test server (see `test-support/paged-server.ts`), offering `names`. */
function pagedSpec(names?: string): McpServerSpec {
  const { command, args } = stdioServerCommand();
  return {
    name: "paged",
    command,
    args: [args[0]!, args[1]!, fileURLToPath(new URL("./test-support/paged-server.ts", import.meta.url))],
    env: { PATH: process.env.PATH ?? "", ...(names === undefined ? {} : { DSH_MCP_TOOLS: names }) },
  };
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

  it("refuses a tool whose name a model cannot take, naming the server and the rule", async () => {
    await expect(connectMcpServers([pagedSpec("fine,not fine")])).rejects.toMatchObject({
      code: "MCP_INVALID_TOOL",
      message: "MCP server paged offers tool not fine, which dsh cannot offer: name: tool names are 1-64 characters of [A-Za-z0-9_-]",
    });
  });
});
