import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { appScript } from "./assets.js";
import { WebError } from "./errors.js";
import { renderPage } from "./page.js";
import type { ContinueLine, PageChoice, RequestWire, SessionListItem, SessionView, WhatIfInput, WhatIfView } from "./view-types.js";

/** A continued turn as the browser asks for it: the prompt, and the model only when the user changed it. */
export interface ContinueInput {
  readonly prompt: string;
  readonly model?: string;
}

/** Where the server gets sessions from and how it continues one; the CLI supplies it over a store. */
export interface WebBackend {
  listSessions(): Promise<readonly SessionListItem[]>;
  /** The session page's data, of the page `at` names (by default the last); throws `WEB_NOT_FOUND` for an unknown id or page. */
  loadSession(id: string, at?: PageChoice): Promise<SessionView>;
  /** The wire body of the session's request `number` (from 1), for a page that carries none; throws `WEB_NOT_FOUND` when there is no such request. */
  requestWire?(id: string, number: number): Promise<RequestWire>;
  /** The verified bytes of an image the session references. */
  image(id: string, digest: string): Promise<{ readonly bytes: Uint8Array; readonly mediaType: string }>;
  /** Runs one turn, reporting progress through `emit`; absent, the page has no composer. */
  continueSession?(id: string, input: ContinueInput, emit: (line: ContinueLine) => void): Promise<void>;
  /** Replays the session with one change and compares it with the recording; absent, the page offers no "what if". */
  whatIf?(id: string, input: WhatIfInput): Promise<WhatIfView>;
}

/** A running web server. */
export interface WebServer {
  /** `http://127.0.0.1:PORT/`. */
  readonly url: string;
  /** This launch's secret: every API call needs it, as the `x-dsh-token` header. */
  readonly token: string;
  /** The URL to open (and print): the app's start page with the secret, which the app keeps for this origin alone (its port included). */
  readonly openUrl: string;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;

async function readBody(request: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new WebError("WEB_BAD_REQUEST", "request body too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A request body that must be one JSON object. */
function jsonObject(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new WebError("WEB_BAD_REQUEST", "the body is not JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new WebError("WEB_BAD_REQUEST", "the body must be a JSON object");
  return body as Record<string, unknown>;
}

function parseContinue(text: string): ContinueInput {
  const body = jsonObject(text);
  // Only what the page sends: a field it never sends (a provider, a key) is refused, not ignored.
  const extra = Object.keys(body).find((key) => key !== "prompt" && key !== "model");
  if (extra !== undefined) throw new WebError("WEB_BAD_REQUEST", `unexpected field ${JSON.stringify(extra)}: a turn takes prompt and model only`);
  const { prompt, model } = body;
  if (typeof prompt !== "string" || prompt.trim() === "") throw new WebError("WEB_BAD_REQUEST", "prompt must be a non-empty string");
  if (model !== undefined && (typeof model !== "string" || model === "")) throw new WebError("WEB_BAD_REQUEST", "model must be a non-empty string when given");
  return { prompt, ...(typeof model === "string" ? { model } : {}) };
}

function parseWhatIf(text: string): WhatIfInput {
  const { at, system, model, ...extra } = jsonObject(text);
  const unexpected = Object.keys(extra)[0];
  if (unexpected !== undefined) throw new WebError("WEB_BAD_REQUEST", `unexpected field ${JSON.stringify(unexpected)}: a what-if takes at and one of system or model`);
  if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0) throw new WebError("WEB_BAD_REQUEST", "at must be a seq (a whole number)");
  if (typeof system === "string" && model === undefined) return { at, system };
  if (typeof model === "string" && model !== "" && system === undefined) return { at, model };
  throw new WebError("WEB_BAD_REQUEST", "give one change: system (a string) or model (a non-empty string)");
}

/** The page a session's URL asks for: `?page=N` (from 1) or `?seq=N`, or none. */
function pageChoice(url: URL): PageChoice | undefined {
  const page = url.searchParams.get("page");
  const seq = url.searchParams.get("seq");
  if (page !== null && seq !== null) throw new WebError("WEB_BAD_REQUEST", "ask for a page or a seq, not both");
  const number = (text: string, name: string) => {
    if (!/^\d{1,15}$/.test(text)) throw new WebError("WEB_BAD_REQUEST", `${name} must be a whole number`);
    return Number(text);
  };
  if (page !== null) return { page: number(page, "page") };
  if (seq !== null) return { seq: number(seq, "seq") };
  return undefined;
}

function send(response: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  response.writeHead(status, { "content-type": type, "cache-control": "no-store", "x-content-type-options": "nosniff" });
  response.end(body);
}

/**
 * Refuses requests not addressed to this loopback server by name (DNS rebinding) and state-changing
 * requests from another origin: a page elsewhere cannot make this server spend tokens.
 */
function guard(request: IncomingMessage, port: number): void {
  const allowed = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  if (!allowed.has(request.headers.host ?? "")) throw new WebError("WEB_FORBIDDEN", "unexpected Host header");
  if (request.method === "GET") return;
  const origin = request.headers.origin;
  if (origin !== undefined && !allowed.has(origin.replace(/^http:\/\//, ""))) throw new WebError("WEB_FORBIDDEN", "cross-origin request");
  if (!(request.headers["content-type"] ?? "").startsWith("application/json")) throw new WebError("WEB_FORBIDDEN", "content-type must be application/json");
}

/** Whether `given` is `token`, compared in constant time. */
function sameToken(given: string | undefined, token: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Refuses an API call without this launch's secret in its `x-dsh-token` header (any other local
 * process or user could otherwise read every session and spend tokens continuing one). The secret is
 * never a cookie: a browser sends cookies to every port of a host, so another local server the user
 * opens would receive it. The app's pages hold no session data and need no secret: the app reads it
 * from the printed link and keeps it for this origin (this port) alone.
 */
function authorize(request: IncomingMessage, url: URL, token: string): void {
  if (!url.pathname.startsWith("/api/")) return;
  if (!sameToken(request.headers["x-dsh-token"] as string | undefined, token)) throw new WebError("WEB_FORBIDDEN", "this server needs the secret of its launch: open the link dsh web printed");
}

async function route(backend: WebBackend, request: IncomingMessage, response: ServerResponse, port: number, token: string): Promise<void> {
  guard(request, port);
  const url = new URL(request.url ?? "/", "http://localhost");
  authorize(request, url, token);
  const path = url.pathname;
  const parts = path.split("/").filter((part) => part !== "").map((part) => decodeURIComponent(part));
  if (request.method === "GET" && (parts.length === 0 || (parts.length === 2 && parts[0] === "sessions"))) {
    send(response, 200, "text/html; charset=utf-8", renderPage({ title: parts[1] ?? "dsh sessions", script: await appScript() }));
    return;
  }
  if (parts[0] !== "api") throw new WebError("WEB_NOT_FOUND", `no page at ${path}`);
  if (request.method === "GET" && parts.length === 2 && parts[1] === "sessions") {
    send(response, 200, "application/json", JSON.stringify(await backend.listSessions()));
    return;
  }
  if (parts[1] !== "sessions" || parts[2] === undefined) throw new WebError("WEB_NOT_FOUND", `no API at ${path}`);
  const id = parts[2];
  if (request.method === "GET" && parts.length === 3) {
    send(response, 200, "application/json", JSON.stringify(await backend.loadSession(id, pageChoice(url))));
    return;
  }
  if (request.method === "GET" && parts.length === 6 && parts[3] === "requests" && parts[5] === "wire" && backend.requestWire !== undefined) {
    const number = /^[1-9]\d{0,8}$/.test(parts[4]!) ? Number(parts[4]) : undefined;
    if (number === undefined) throw new WebError("WEB_NOT_FOUND", `no request ${parts[4]!} in session ${id}`);
    send(response, 200, "application/json", JSON.stringify(await backend.requestWire(id, number)));
    return;
  }
  if (request.method === "GET" && parts.length === 5 && parts[3] === "images") {
    const image = await backend.image(id, parts[4]!);
    send(response, 200, image.mediaType, image.bytes);
    return;
  }
  if (request.method === "POST" && parts.length === 4 && parts[3] === "turns" && backend.continueSession !== undefined) {
    const input = parseContinue(await readBody(request));
    response.writeHead(200, { "content-type": "application/x-ndjson", "cache-control": "no-store" });
    const emit = (line: ContinueLine) => response.write(`${JSON.stringify(line)}\n`);
    try {
      await backend.continueSession(id, input, emit);
    } catch (error) {
      emit({ type: "error", message: error instanceof Error ? error.message : String(error) });
    }
    response.end();
    return;
  }
  if (request.method === "POST" && parts.length === 4 && parts[3] === "what-if" && backend.whatIf !== undefined) {
    const input = parseWhatIf(await readBody(request));
    send(response, 200, "application/json", JSON.stringify(await backend.whatIf(id, input)));
    return;
  }
  throw new WebError("WEB_NOT_FOUND", `no API at ${request.method ?? "?"} ${path}`);
}

/**
 * Serves the web app over `backend` on loopback (`port` 0 picks a free one), with a secret made for
 * this launch that every request must carry (open `openUrl`).
 */
export async function startWebServer(backend: WebBackend, options: { readonly port?: number } = {}): Promise<WebServer> {
  let port = 0;
  const token = randomBytes(24).toString("base64url");
  const server = createServer((request, response) => {
    route(backend, request, response, port, token).catch((error: unknown) => {
      const status = error instanceof WebError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) response.end();
      else send(response, status, "application/json", JSON.stringify({ error: message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    token,
    openUrl: `http://127.0.0.1:${port}/?token=${token}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
