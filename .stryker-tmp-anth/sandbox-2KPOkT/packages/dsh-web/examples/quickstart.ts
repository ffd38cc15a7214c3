import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, createAgentRegistry, reconstructRequests } from "dsh-agent";
import { LlmRuntime, type LlmAdapter } from "dsh-llm";
import { EventLog } from "dsh-log";
import { WebError, appScript, buildSessionView, renderPage, startWebServer, type SessionListItem } from "dsh-web";

// A stand-in for a real provider: it answers every request with the same words.
const model: LlmAdapter = {
  provider: "demo",
  async *stream() {
    yield { type: "text-delta", text: "Hello!" };
    yield { type: "usage", usage: { inputTokens: 20, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0 } };
    yield { type: "finish", reason: "stop" };
  },
};

export async function main(): Promise<boolean> {
  const log = new EventLog({ registry: createAgentRegistry() });
  const agent = new Agent({ log, runtime: new LlmRuntime({ adapters: [model] }), config: { provider: "demo", model: "m" }, systemPrompt: "Be brief." });
  await agent.run("hi");
  await agent.run("and again");
  const view = buildSessionView({ info: { sessionId: "demo", createdAt: Date.now() }, events: log.slice(), requests: await reconstructRequests(log) });

  // One self-contained HTML file: open it in a browser, attach it to a bug report.
  const file = join(await mkdtemp(join(tmpdir(), "dsh-")), "session.html");
  await writeFile(file, renderPage({ title: "demo session", script: await appScript(), view }));

  // Or serve your sessions on loopback: the list at /, each session at /sessions/ID.
  const server = await startWebServer({
    listSessions: async () => [view.session],
    loadSession: async (id) => {
      if (id !== "demo") throw new WebError("WEB_NOT_FOUND", `no session ${id}`);
      return view;
    },
    image: async () => {
      throw new WebError("WEB_NOT_FOUND", "this session has no images");
    },
  });
  // A browser opens server.openUrl (it carries this launch's secret); a script sends the secret as a header.
  const listed = (await (await fetch(`${server.url}api/sessions`, { headers: { "x-dsh-token": server.token } })).json()) as SessionListItem[];
  console.log(listed.map((session) => `${session.id}: ${session.turns} turns, ${session.requests} requests`)); // [ 'demo: 2 turns, 2 requests' ]
  await server.close();
  return view.requests.length === 2;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
