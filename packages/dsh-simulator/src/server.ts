import { createHash } from "node:crypto";
import { appendFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { chatFrames } from "./chat-stream.js";
import { DEFAULT_REASONING, deepseekVerdict } from "./deepseek.js";
import { readCacheFile, writeCacheFile } from "./cache-file.js";
import { ExplicitCache } from "./explicit-cache.js";
import { exploreResponse } from "./explore.js";
import { messagesExploreView } from "./messages-explore.js";
import { renderMessagesPrompt, type MessagesBody } from "./messages-prompt.js";
import { messagesVerdict, minCacheableTokens, signThinking } from "./messages-rules.js";
import { messagesFrames } from "./messages-stream.js";
import { Diagnostician } from "./fingerprints.js";
import { geminiExploreView, type GeminiBody } from "./gemini-prompt.js";
import { geminiVerdict } from "./gemini-rules.js";
import { geminiRoute, serveGeminiCache } from "./gemini-serve.js";
import { geminiFrames } from "./gemini-stream.js";
import { HTTP_FAULTS, deliver, playsHttpFault, sendError, type Refuse } from "./http-answer.js";
import { PrefixCache } from "./prefix-cache.js";
import { promptTokens } from "./prompt.js";
import type { ResponsesBody } from "./responses-prompt.js";
import { responsesVerdict } from "./responses-rules.js";
import { responsesExploreView, serveResponsesCache } from "./responses-serve.js";
import { responsesFrames } from "./responses-stream.js";
import type { Scenario, ScriptedResponse } from "./scenario.js";

/** Options of {@link startSimulator}. */
export interface SimulatorOptions {
  readonly scenario: Scenario;
  /** Loopback only: `127.0.0.1` (default) or `::1`. */
  readonly host?: "127.0.0.1" | "::1";
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** When set, requests must carry `Authorization: Bearer <apiKey>`, `x-api-key: <apiKey>` or `x-goog-api-key: <apiKey>`. */
  readonly apiKey?: string;
  /** How long a `stall` fault holds the connection open before closing it (default 30 s). */
  readonly stallMs?: number;
  /** Appends every received body, as a JSON string per line, to this file. */
  readonly recordTo?: string;
  /**
   * Whether each exchange keeps the raw body it received (default true). Off, `body` is empty: a long
   * session's bodies, each holding the history before it, grow with the square of its length.
   */
  readonly keepBodies?: boolean;
  /**
   * Keeps both prompt caches in this file across simulators (processes), as a provider's outlive a
   * client: read at start, merged into on close. Explicit-cache entries age in wall-clock time
   * while no simulator runs.
   */
  readonly cacheFile?: string;
}

/** What the simulator did for one request. */
export interface SimulatedExchange {
  /** The raw request body, exactly as received (empty when the simulator keeps no bodies). */
  readonly body: string;
  /** The whole prompt, in tokens. */
  readonly promptTokens: number;
  readonly cacheHitTokens: number;
  /** Tokens written to the explicit cache (Messages API only; 0 elsewhere). */
  readonly cacheWriteTokens: number;
  readonly fault: ScriptedResponse["fault"];
}

/** A running simulator. */
export interface Simulator {
  /** The Chat Completions API root, e.g. `http://127.0.0.1:41234/v1`. */
  readonly url: string;
  /** The server root, e.g. `http://127.0.0.1:41234`: the base URL of an Anthropic-format client (`/v1/messages`). */
  readonly origin: string;
  /** Every request, in arrival order. */
  readonly exchanges: readonly SimulatedExchange[];
  /** Moves the virtual clock that explicit cache entries expire on (it starts at 0 and moves only here). */
  advanceClock(ms: number): void;
  close(): Promise<void>;
}

const EXHAUSTED: ScriptedResponse = { text: "(the scenario has no more responses)" };

/**
 * Starts a loopback server that answers from a scenario in three dialects: OpenAI-compatible Chat
 * Completions (`/v1/chat/completions`, DeepSeek's automatic prefix cache), OpenAI's Responses API
 * (`/v1/responses`, stateless, encrypted reasoning checked on the way back, OpenAI's prefix cache)
 * Anthropic's Messages API (`/v1/messages`, explicit breakpoints with TTLs on a virtual clock) and
 * Google's Gemini API (`/v1beta/models/{model}:streamGenerateContent`, thought signatures checked on
 * the way back, implicit caching). It injects faults and records the raw bodies it received.
 */
export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const prefixCache = new PrefixCache();
  const explicitCache = new ExplicitCache();
  const diagnostician = new Diagnostician();
  const startedAt = Date.now();
  if (options.cacheFile !== undefined) {
    const saved = await readCacheFile(options.cacheFile);
    prefixCache.restore(saved.prefixes);
    diagnostician.restore(saved.fingerprints ?? []);
    // The virtual clock starts at 0 now: a wall-clock expiry is that far ahead of it.
    explicitCache.restore(saved.explicit.map(([key, expiry]) => [key, expiry - startedAt] as const));
  }
  const exchanges: SimulatedExchange[] = [];
  const keepBodies = options.keepBodies ?? true;
  const record = (raw: string, exchange: Omit<SimulatedExchange, "body">) => void exchanges.push({ body: keepBodies ? raw : "", ...exchange });
  const sockets = new Set<import("node:net").Socket>();
  let next = 0;
  let clock = 0;
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
    const messagesApi = path === "/v1/messages";
    const responsesApi = path === "/v1/responses" || path === "/responses";
    const geminiModel = geminiRoute(path ?? "");
    const dialect = messagesApi ? "anthropic" : geminiModel !== undefined ? "google" : "openai";
    if (request.method !== "POST" || !(messagesApi || responsesApi || geminiModel !== undefined || path === "/v1/chat/completions" || path === "/chat/completions")) {
      sendError(response, 404, `no route for ${request.method} ${path}`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    if (options.recordTo !== undefined) await appendFile(options.recordTo, `${JSON.stringify(raw)}\n`, { mode: 0o600 });
    const refuse: Refuse = (status, message, fault, headers, type) => {
      record(raw, { promptTokens: 0, cacheHitTokens: 0, cacheWriteTokens: 0, fault });
      sendError(response, status, message, headers, type, dialect);
    };
    const key = options.apiKey;
    if (key !== undefined && request.headers.authorization !== `Bearer ${key}` && request.headers["x-api-key"] !== key && request.headers["x-goog-api-key"] !== key) {
      refuse(401, "invalid API key", undefined, {}, "authentication_error");
      return;
    }
    let body: MessagesBody & ResponsesBody & GeminiBody & { messages?: unknown; tools?: unknown; thinking?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      refuse(400, "the body is not JSON", undefined, {}, "invalid_request_error");
      return;
    }
    const model = String(body.model ?? "sim");
    if (responsesApi) {
      await serveResponses(body, raw, response, refuse);
      return;
    }
    if (geminiModel !== undefined) {
      await serveGemini(body, geminiModel, raw, response, refuse);
      return;
    }
    const blocks = messagesApi ? renderMessagesPrompt(body) : [];
    const verdict = messagesApi ? messagesVerdict(body, blocks) : deepseekVerdict(body);
    if (verdict.refused) {
      refuse(400, verdict.message, undefined, {}, "invalid_request_error");
      return;
    }
    const script = "policy" in options.scenario ? exploreResponse(messagesApi ? messagesExploreView(body) : body, options.scenario.delegates) : (options.scenario.responses[next++] ?? EXHAUSTED);
    // In thinking mode the model always reasons first.
    const scripted = verdict.thinking && (script.reasoning ?? "") === "" ? { ...script, reasoning: DEFAULT_REASONING } : script;
    if (playsHttpFault(scripted, refuse, HTTP_FAULTS.chat)) return;
    // Numbered from 1, as the exchange about to be recorded.
    const n = exchanges.length + 1;
    if (messagesApi) {
      const outcome = explicitCache.serve(blocks, minCacheableTokens(model), clock);
      const written = outcome.written5m + outcome.written1h;
      record(raw, { promptTokens: outcome.read + written + outcome.uncached, cacheHitTokens: outcome.read, cacheWriteTokens: written, fault: scripted.fault });
      const signature = verdict.thinking ? signThinking(scripted.reasoning ?? "") : undefined;
      const key = callKey(blocks.at(-1)?.prefixKey ?? raw);
      // Named after the whole body, so it is unique within a session and across simulators sharing a cache file.
      const id = `msg_sim_${callKey(raw)}`;
      await deliver(response, messagesFrames(id, model, scripted, outcome, signature, key, diagnostician.messages(body, blocks, id)), scripted.fault, options.stallMs);
      return;
    }
    const tokens = promptTokens(body);
    const hit = prefixCache.serve(model, tokens);
    record(raw, { promptTokens: tokens.length, cacheHitTokens: hit, cacheWriteTokens: 0, fault: scripted.fault });
    await deliver(response, chatFrames(n, model, scripted, tokens.length, hit, callKey(raw)), scripted.fault, options.stallMs);
  }

  /** One Responses API request: its rules, then the scripted answer with OpenAI's prefix cache. */
  async function serveResponses(body: ResponsesBody, raw: string, response: ServerResponse, refuse: Refuse): Promise<void> {
    const verdict = responsesVerdict(body);
    if (verdict.refused) {
      refuse(verdict.status, verdict.message, undefined, {}, "invalid_request_error");
      return;
    }
    const scripted = "policy" in options.scenario ? exploreResponse(responsesExploreView(body), options.scenario.delegates) : (options.scenario.responses[next++] ?? EXHAUSTED);
    if (playsHttpFault(scripted, refuse, HTTP_FAULTS.responses)) return;
    const cache = serveResponsesCache(prefixCache, body, verdict.implicit);
    record(raw, { promptTokens: cache.promptTokens, cacheHitTokens: cache.cachedTokens, cacheWriteTokens: cache.cacheWriteTokens ?? 0, fault: scripted.fault });
    const summary = (body.reasoning as { summary?: unknown } | undefined)?.summary !== undefined;
    // Named after the whole body, so it is unique within a session and across simulators sharing a cache file.
    const id = `resp_sim_${callKey(raw)}`;
    const diagnosis = diagnostician.responses(body, cache.ends, id);
    const answer = { id, model: String(body.model ?? "sim"), key: callKey(cache.prompt), thinking: verdict.thinking, summary, promptTokens: cache.promptTokens, cachedTokens: cache.cachedTokens, cacheWriteTokens: cache.cacheWriteTokens, ...(diagnosis === undefined ? {} : { extra: { prompt_cache_diagnostics: diagnosis } }) };
    await deliver(response, responsesFrames(answer, scripted), scripted.fault, options.stallMs);
  }

  /** One Gemini request: its rules, then the scripted answer with Google's implicit cache. */
  async function serveGemini(body: GeminiBody, model: string, raw: string, response: ServerResponse, refuse: Refuse): Promise<void> {
    const verdict = geminiVerdict(body, model);
    if (verdict.refused) {
      refuse(400, verdict.message, undefined, {}, "INVALID_ARGUMENT");
      return;
    }
    const scripted = "policy" in options.scenario ? exploreResponse(geminiExploreView(body), options.scenario.delegates) : (options.scenario.responses[next++] ?? EXHAUSTED);
    if (playsHttpFault(scripted, refuse, HTTP_FAULTS.gemini)) return;
    const cache = serveGeminiCache(prefixCache, body, model);
    record(raw, { promptTokens: cache.promptTokens, cacheHitTokens: cache.cachedTokens, cacheWriteTokens: 0, fault: scripted.fault });
    // Named after the whole body, so it is unique within a session and across simulators sharing a cache file.
    const answer = { responseId: `sim_${callKey(raw)}`, model, thinking: verdict.thinking, thoughts: verdict.thoughts, promptTokens: cache.promptTokens, cachedTokens: cache.cachedTokens };
    await deliver(response, geminiFrames(answer, scripted), scripted.fault, options.stallMs);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/v1`,
    origin: `http://${host}:${address.port}`,
    exchanges,
    advanceClock(ms: number) {
      if (!(ms >= 0)) throw new RangeError("the clock only moves forward");
      clock += ms;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (options.cacheFile === undefined) return;
      // Virtual time runs from the start, plus whatever advanceClock added: saved as wall-clock expiries.
      const explicit = explicitCache.entries().map(([key, expiry]) => [key, startedAt + expiry] as const);
      await writeCacheFile(options.cacheFile, { prefixes: prefixCache.keys(), explicit, fingerprints: diagnostician.saved() }, startedAt + clock);
    },
  };
}

/**
 * The key in the tool-call ids of the answer to a request: a digest of what the model reads (the
 * body, or for the Messages API its prompt without cache markers), so ids never repeat within a
 * session (every step's prompt differs from the last), also across processes, and a retry of the
 * same request gets the same ids.
 */
function callKey(prompt: string): string {
  return createHash("sha256").update(prompt).digest("hex").slice(0, 12);
}
