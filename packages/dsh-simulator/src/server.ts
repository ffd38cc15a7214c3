import { appendFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_REASONING, deepseekVerdict } from "./deepseek.js";
import { exploreResponse } from "./explore.js";
import { PrefixCache } from "./prefix-cache.js";
import { promptTokens, tokenize } from "./prompt.js";
import type { Scenario, ScriptedResponse } from "./scenario.js";

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  readonly scenario: Scenario;
  /** Loopback only: `127.0.0.1` (default) or `::1`. */
  readonly host?: "127.0.0.1" | "::1";
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** How long a `stall` fault holds the connection open before closing it (default 30 s). */
  readonly stallMs?: number;
  /** Appends every received body, as a JSON string per line, to this file. */
  readonly recordTo?: string;
}

/** What the simulator did for one request. */
export interface SimulatedExchange {
  /** The raw request body, exactly as received. */
  readonly body: string;
  readonly promptTokens: number;
  readonly cacheHitTokens: number;
  readonly fault: ScriptedResponse["fault"];
}

/** A running simulator. */
export interface Simulator {
  /** The API root to give an adapter, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** Every request, in arrival order. */
  readonly exchanges: readonly SimulatedExchange[];
  close(): Promise<void>;
}

const EXHAUSTED: ScriptedResponse = { text: "(the scenario has no more responses)" };

/**
 * Starts an OpenAI-compatible Chat Completions server on loopback that answers from a scenario,
 * keeps a real prefix cache over the rendered prompt tokens, reports DeepSeek-style cache usage on
 * the final chunk, injects faults, and records the raw bodies it received.
 */
export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const cache = new PrefixCache();
  const exchanges: SimulatedExchange[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let next = 0;
  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, `simulator failure: ${(error as Error).message}`);
      else response.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? "").split("?")[0];
    if (request.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      sendError(response, 404, `no route for ${request.method} ${path}`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (options.recordTo !== undefined) await appendFile(options.recordTo, `${JSON.stringify(raw)}\n`, { mode: 0o600 });
    /** Answers with an HTTP error, recording the request as one that reached no model. */
    const refuse = (status: number, message: string, fault?: ScriptedResponse["fault"], headers?: Record<string, string>, type?: string) => {
      exchanges.push({ body: raw, promptTokens: 0, cacheHitTokens: 0, fault });
      sendError(response, status, message, headers, type);
    };
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      refuse(401, "invalid API key");
      return;
    }
    let body: { model?: unknown; messages?: unknown; tools?: unknown; thinking?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      refuse(400, "the body is not JSON");
      return;
    }
    const verdict = deepseekVerdict(body);
    if (verdict.refused) {
      refuse(verdict.status, verdict.message, undefined, {}, "invalid_request_error");
      return;
    }
    const script = "policy" in options.scenario ? exploreResponse(body) : (options.scenario.responses[next++] ?? EXHAUSTED);
    // In thinking mode the model always reasons first.
    const scripted = verdict.thinking && (script.reasoning ?? "") === "" ? { ...script, reasoning: DEFAULT_REASONING } : script;
    if (scripted.fault === "http-429" || scripted.fault === "http-500") {
      const limited = scripted.fault === "http-429";
      refuse(limited ? 429 : 500, limited ? "rate limited" : "internal error", scripted.fault, { "retry-after": "0" });
      return;
    }
    const tokens = promptTokens(body);
    const hit = cache.serve(String(body.model ?? ""), tokens);
    exchanges.push({ body: raw, promptTokens: tokens.length, cacheHitTokens: hit, fault: scripted.fault });
    await stream(response, String(body.model ?? "sim"), scripted, tokens.length, hit);
  }

  async function stream(response: ServerResponse, model: string, scripted: ScriptedResponse, promptTokens: number, hit: number) {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const id = `chatcmpl-${exchanges.length}`;
    const frame = (choice: object, usage?: object) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model, choices: [{ index: 0, ...choice }], ...(usage ? { usage } : {}) })}\n\n`;
    const frames: string[] = [frame({ delta: { role: "assistant", content: "" }, finish_reason: null })];
    let completion = "";
    for (const piece of pieces(scripted.reasoning ?? "")) {
      frames.push(frame({ delta: { reasoning_content: piece }, finish_reason: null }));
      completion += piece;
    }
    const reasoningTokens = tokenize(scripted.reasoning ?? "").length;
    for (const piece of pieces(scripted.text ?? "")) {
      frames.push(frame({ delta: { content: piece }, finish_reason: null }));
      completion += piece;
    }
    (scripted.toolCalls ?? []).forEach((call, index) => {
      const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
      const [first = "", ...rest] = pieces(args);
      frames.push(frame({ delta: { tool_calls: [{ index, id: `call_${exchanges.length}_${index}`, type: "function", function: { name: call.name, arguments: first } }] }, finish_reason: null }));
      for (const piece of rest) frames.push(frame({ delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }));
      completion += call.name + args;
    });
    const completionTokens = tokenize(completion).length;
    const finish = scripted.finishReason ?? ((scripted.toolCalls?.length ?? 0) > 0 ? "tool_calls" : "stop");
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: promptTokens - hit,
      prompt_tokens_details: { cached_tokens: hit },
      ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
    };
    frames.push(frame({ delta: {}, finish_reason: finish }, usage), "data: [DONE]\n\n");

    if (scripted.fault === "truncate") {
      // Let the first half reach the client before the connection drops, as a mid-stream failure would.
      await new Promise((resolve) => response.write(frames.slice(0, Math.max(1, Math.floor(frames.length / 2))).join(""), resolve));
      await new Promise((resolve) => setTimeout(resolve, 20));
      response.destroy();
      return;
    }
    if (scripted.fault === "malformed") {
      response.write(frames[0]!);
      response.end('data: {"choices": [ this is not json\n\n');
      return;
    }
    if (scripted.fault === "stall") {
      response.write(frames[0]!);
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, options.stallMs ?? 30_000);
        response.on("close", () => {
          clearTimeout(timer);
          resolve(undefined);
        });
      });
      response.destroy();
      return;
    }
    for (const text of frames) response.write(text);
    response.end();
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    exchanges,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Splits text into the small pieces a real stream delivers. */
function pieces(text: string): string[] {
  const characters = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < characters.length; i += 24) out.push(characters.slice(i, i + 24).join(""));
  return out;
}

function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, type = "simulator_error"): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify({ error: { message, type, param: null, code: type } }));
}
