// A real MCP server written with the official SDK, for the tests: stdio (serve-stdio.ts) and Streamable HTTP (startHttpServer).
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

/** A 1x1 PNG. */
export const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** The server's tools: echo, add (structured), picture (an image), slow (waits), count (reports progress), fail, crash (exits), grow (adds a tool and announces it). */
export function buildServer(): McpServer {
  const server = new McpServer({ name: "dsh-test-server", version: "1.0.0" });
  server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }));
  server.registerTool("add", { description: "Add two numbers.", inputSchema: { a: z.number(), b: z.number() }, outputSchema: { sum: z.number() } }, async ({ a, b }) => ({
    content: [],
    structuredContent: { sum: a + b },
  }));
  server.registerTool("picture", { description: "Return a picture." }, async () => ({ content: [{ type: "text", text: "here:" }, { type: "image", data: PIXEL_PNG, mimeType: "image/png" }] }));
  server.registerTool("slow", { description: "Wait, then answer.", inputSchema: { ms: z.number() } }, async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: `waited ${ms} ms` }] };
  });
  server.registerTool("count", { description: "Count to n, reporting progress.", inputSchema: { n: z.number() } }, async ({ n }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: n, message: `step ${i}` } });
      // A step of work: the SDK writes a notification after the result it was sent before, when nothing happens in between.
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { content: [{ type: "text", text: `counted to ${n}` }] };
  });
  server.registerTool("where", { description: "Say where the server runs." }, async () => ({ content: [{ type: "text", text: `${process.cwd()}|${process.env.DSH_MCP_TEST ?? "-"}` }] }));
  server.registerTool("fail", { description: "Report a failure." }, async () => ({ content: [{ type: "text", text: "it did not work" }], isError: true }));
  server.registerTool("crash", { description: "Exit at once." }, async () => {
    process.stderr.write("crashing on purpose\n");
    process.exit(3);
  });
  server.registerTool("grow", { description: "Offer one more tool." }, async () => {
    server.registerTool("extra", { description: "A tool that came later." }, async () => ({ content: [{ type: "text", text: "extra" }] }));
    return { content: [{ type: "text", text: "grown" }] };
  });
  return server;
}

/** The server over Streamable HTTP on loopback, one MCP session per client; `url` is its endpoint, `authorizations` the `authorization` headers it received. */
export async function startHttpServer(): Promise<{ readonly url: string; readonly authorizations: readonly string[]; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: string[] = [];
  const http = createServer((request: IncomingMessage, response) => {
    void (async () => {
      if (typeof request.headers.authorization === "string") authorizations.push(request.headers.authorization);
      const id = request.headers["mcp-session-id"];
      let transport = typeof id === "string" ? sessions.get(id) : undefined;
      if (transport === undefined) {
        transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (session) => void sessions.set(session, transport!) });
        await buildServer().connect(transport);
      }
      await transport.handleRequest(request, response);
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    authorizations,
    async close() {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

/** How to start the test server over stdio as a child process: a command and its arguments. */
export function stdioServerCommand(): { readonly command: string; readonly args: readonly string[] } {
  return { command: process.execPath, args: ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("./mcp-serve-stdio.ts", import.meta.url))] };
}
