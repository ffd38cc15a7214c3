import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebError } from "./errors.js";
import { startWebServer, type WebBackend, type WebServer } from "./server.js";
import { buildSessionView } from "./session-view.js";
import { sampleSession } from "./test-support/session.js";
import type { ContinueLine, SessionView, WhatIfInput, WhatIfView } from "./view-types.js";

/** The secret of the server under test, sent with every call unless `secret: false`. */
let secret = "";

/** A raw HTTP request, so Host and Origin can be set as a hostile page would. */
function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: string; secret?: boolean } = {}): Promise<{ status: number; type: string; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const headers = { ...(options.secret === false ? {} : { "x-dsh-token": secret }), ...options.headers };
    const request = httpRequest(url, { method: options.method ?? "GET", headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, type: String(response.headers["content-type"]), body, headers: response.headers }));
    });
    request.on("error", reject);
    request.end(options.body);
  });
}

describe("startWebServer", () => {
  let server: WebServer;
  const continued: { id: string; prompt: string; model?: string }[] = [];
  const asked: WhatIfInput[] = [];

  beforeAll(async () => {
    const { events, requests } = await sampleSession();
    const view = buildSessionView({ info: { sessionId: "s1", createdAt: 1 }, events, requests });
    const backend: WebBackend = {
      listSessions: async () => [view.session],
      loadSession: async (id, at) => {
        if (id !== "s1") throw new WebError("WEB_NOT_FOUND", `no session ${id}`);
        if (at !== undefined) return buildSessionView({ info: { sessionId: "s1", createdAt: 1 }, events, requests, pageEvents: 10, page: at });
        return view;
      },
      requestWire: async (id, number) => {
        if (id !== "s1" || number > 6) throw new WebError("WEB_NOT_FOUND", `no request ${number} in session ${id}`);
        return { wire: `{"request":${number}}`, wireBytes: 15 };
      },
      image: async () => ({ bytes: new Uint8Array([1, 2, 3]), mediaType: "image/png" }),
      continueSession: async (id, input, emit: (line: ContinueLine) => void) => {
        continued.push({ id, prompt: input.prompt, ...(input.model === undefined ? {} : { model: input.model }) });
        emit({ type: "text", text: "hel" });
        emit({ type: "text", text: "lo" });
        if (input.prompt === "fail") throw new Error("the provider is down");
        emit({ type: "done", turn: 3, reason: "completed" });
      },
      whatIf: async (id, input) => {
        asked.push(input);
        const none = { promptTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, inputTokens: 0, costUsd: 0 };
        return { change: id, fork: input.at, rows: [], totals: { recorded: none, whatIf: none }, delta: { cacheReadTokens: 0, inputTokens: 0, costUsd: 0 }, honesty: [] } satisfies WhatIfView;
      },
    };
    server = await startWebServer(backend);
    secret = server.token;
  });

  it("refuses every API call without this launch's secret in its header, and never hands the secret out as a cookie another port would receive", async () => {
    expect(server.openUrl).toBe(`${server.url}?token=${server.token}`);
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const refused = { status: 403, body: '{"error":"this server needs the secret of its launch: open the link dsh web printed"}' };
    for (const path of ["api/sessions", "api/sessions/s1", "api/sessions/s1/images/sha256:00", "api/sessions/s1/requests/1/wire"]) {
      expect(await call(`${server.url}${path}`, { secret: false })).toMatchObject(refused);
      expect(await call(`${server.url}${path}`, { secret: false, headers: { "x-dsh-token": `${server.token}x` } })).toMatchObject(refused);
      // A cookie is no way in: a browser would send it to any other server on this host.
      expect(await call(`${server.url}${path}`, { secret: false, headers: { cookie: `dsh_token=${server.token}` } })).toMatchObject(refused);
      // Nor is the query string.
      expect(await call(`${server.url}${path}?token=${server.token}`, { secret: false })).toMatchObject(refused);
    }
    const turn = { method: "POST", body: '{"prompt":"spend tokens"}', headers: { "content-type": "application/json" } };
    expect(await call(`${server.url}api/sessions/s1/turns`, { ...turn, secret: false })).toMatchObject(refused);
    // The pages hold no session data: they load without the secret, and set no cookie.
    const visit = await call(`${server.url}sessions/s1?token=${server.token}`, { secret: false });
    expect(visit).toMatchObject({ status: 200, type: "text/html; charset=utf-8" });
    expect(visit.headers["set-cookie"]).toBeUndefined();
    expect(visit.body).not.toContain(server.token);
    expect(continued).toEqual([]);
  });

  afterAll(() => server.close());

  it("listens on loopback only and serves the app page and the JSON API", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await call(server.url);
    expect(page).toMatchObject({ status: 200, type: "text/html; charset=utf-8" });
    expect(page.body).toMatch(/<script type="module">.+<\/script>/s);
    expect((await call(`${server.url}sessions/s1`)).body).toContain("<title>s1</title>");
    expect(JSON.parse((await call(`${server.url}api/sessions`)).body)).toMatchObject([{ id: "s1", requests: 6 }]);
    expect(JSON.parse((await call(`${server.url}api/sessions/s1`)).body).requests).toHaveLength(6);
    expect(await call(`${server.url}api/sessions/s1/images/sha256:00`)).toMatchObject({ status: 200, type: "image/png", body: "\u0001\u0002\u0003" });
  });

  it("answers the page of a session a number or a seq names, and refuses a query that is neither", async () => {
    const page = (query: string) => call(`${server.url}api/sessions/s1?${query}`);
    const second = JSON.parse((await page("page=2")).body) as SessionView;
    expect(second.page).toBe(2);
    expect(second.timeline[0]!.seq).toBe(second.pages[1]!.from);
    const holding = JSON.parse((await page(`seq=${second.pages[2]!.from}`)).body) as SessionView;
    expect(holding.page).toBe(3);
    expect(await page("page=99")).toMatchObject({ status: 404, body: `{"error":"no page 99: the session has ${second.pages.length}"}` });
    expect(await page("seq=9999")).toMatchObject({ status: 404, body: '{"error":"no event at seq 9999 in this session"}' });
    for (const bad of ["page=x", "page=-1", "page=1.5", "seq=", "seq=1e3"]) {
      expect(await page(bad)).toMatchObject({ status: 400, body: `{"error":"${bad.split("=")[0]} must be a whole number"}` });
    }
    expect(await page("page=1&seq=1")).toMatchObject({ status: 400, body: '{"error":"ask for a page or a seq, not both"}' });
  });

  it("answers a request's wire body by its number, and no number that is not one", async () => {
    expect(await call(`${server.url}api/sessions/s1/requests/2/wire`)).toMatchObject({ status: 200, type: "application/json", body: '{"wire":"{\\"request\\":2}","wireBytes":15}' });
    expect(await call(`${server.url}api/sessions/s1/requests/7/wire`)).toMatchObject({ status: 404, body: '{"error":"no request 7 in session s1"}' });
    for (const bad of ["0", "-1", "1.5", "x", "01", "1234567890"]) {
      expect(await call(`${server.url}api/sessions/s1/requests/${bad}/wire`)).toMatchObject({ status: 404, body: `{"error":"no request ${bad} in session s1"}` });
    }
    expect(await call(`${server.url}api/sessions/s1/requests/2/wire`, { secret: false })).toMatchObject({ status: 403 });
  });

  it("answers unknown things with a JSON error and its status", async () => {
    expect(await call(`${server.url}api/sessions/nope`)).toMatchObject({ status: 404, body: '{"error":"no session nope"}' });
    expect(await call(`${server.url}favicon.ico`)).toMatchObject({ status: 404 });
    expect(await call(`${server.url}api/other`)).toMatchObject({ status: 404 });
  });

  it("refuses another Host (DNS rebinding), another Origin, and a POST that is not JSON", async () => {
    expect(await call(`${server.url}api/sessions`, { headers: { host: "attacker.example" } })).toMatchObject({ status: 403, body: '{"error":"unexpected Host header"}' });
    const post = { method: "POST", body: '{"prompt":"hi"}' };
    expect(await call(`${server.url}api/sessions/s1/turns`, { ...post, headers: { "content-type": "application/json", origin: "http://attacker.example" } })).toMatchObject({ status: 403 });
    expect(await call(`${server.url}api/sessions/s1/turns`, { ...post, headers: { "content-type": "text/plain" } })).toMatchObject({ status: 403 });
    expect(await call(`${server.url}api/sessions/s1/turns`, { method: "POST", body: '{"prompt":""}', headers: { "content-type": "application/json" } })).toMatchObject({ status: 400 });
    expect(await call(`${server.url}api/sessions/s1/turns`, { method: "POST", body: "{", headers: { "content-type": "application/json" } })).toMatchObject({ status: 400 });
    expect(await call(`${server.url}api/sessions/s1/turns`, { method: "POST", body: '{"prompt":"x","model":7}', headers: { "content-type": "application/json" } })).toMatchObject({ status: 400 });
    expect(continued).toEqual([]);
  });

  it("streams a continued turn as newline-delimited JSON, ending with done or the error", async () => {
    const origin = server.url.slice(0, -1);
    const ok = await call(`${server.url}api/sessions/s1/turns`, { method: "POST", body: '{"prompt":"go on","model":"b"}', headers: { "content-type": "application/json", origin } });
    expect(ok.type).toBe("application/x-ndjson");
    expect(ok.body).toBe('{"type":"text","text":"hel"}\n{"type":"text","text":"lo"}\n{"type":"done","turn":3,"reason":"completed"}\n');
    const failed = await call(`${server.url}api/sessions/s1/turns`, { method: "POST", body: '{"prompt":"fail"}', headers: { "content-type": "application/json" } });
    expect(failed.body.trimEnd().split("\n").at(-1)).toBe('{"type":"error","message":"the provider is down"}');
    expect(continued).toEqual([{ id: "s1", prompt: "go on", model: "b" }, { id: "s1", prompt: "fail" }]);
  });

  it("answers a what-if with the backend's comparison, and refuses a question that is not one change at a seq", async () => {
    const json = { "content-type": "application/json" };
    const ask = (body: string) => call(`${server.url}api/sessions/s1/what-if`, { method: "POST", body, headers: json });
    const answered = await ask('{"at":7,"system":"be brief"}');
    expect(answered).toMatchObject({ status: 200, type: "application/json" });
    expect(JSON.parse(answered.body)).toMatchObject({ change: "s1", fork: 7 });
    expect((await ask('{"at":0,"model":"m2"}')).status).toBe(200);
    expect(asked).toEqual([{ at: 7, system: "be brief" }, { at: 0, model: "m2" }]);
    const refused = (message: string) => ({ status: 400, body: JSON.stringify({ error: message }) });
    expect(await ask('{"system":"x"}')).toMatchObject(refused("at must be a seq (a whole number)"));
    expect(await ask('{"at":-1,"system":"x"}')).toMatchObject(refused("at must be a seq (a whole number)"));
    expect(await ask('{"at":1.5,"system":"x"}')).toMatchObject(refused("at must be a seq (a whole number)"));
    expect(await ask('{"at":1}')).toMatchObject(refused("give one change: system (a string) or model (a non-empty string)"));
    expect(await ask('{"at":1,"system":"x","model":"m"}')).toMatchObject(refused("give one change: system (a string) or model (a non-empty string)"));
    expect(await ask('{"at":1,"model":""}')).toMatchObject(refused("give one change: system (a string) or model (a non-empty string)"));
    expect(await ask('{"at":1,"system":7}')).toMatchObject(refused("give one change: system (a string) or model (a non-empty string)"));
    expect(await ask('{"at":1,"system":"x","provider":"openai"}')).toMatchObject(refused('unexpected field "provider": a what-if takes at and one of system or model'));
    expect(await ask("[1]")).toMatchObject(refused("the body must be a JSON object"));
    expect(await ask("{")).toMatchObject(refused("the body is not JSON"));
    expect(asked).toHaveLength(2);
  });

  it("answers each refusal with its message, and keeps responses out of caches and sniffers", async () => {
    const json = { "content-type": "application/json; charset=utf-8" };
    const post = (body: string, headers: Record<string, string> = json) => call(`${server.url}api/sessions/s1/turns`, { method: "POST", body, headers });
    expect(await post('{"prompt":""}')).toMatchObject({ status: 400, body: '{"error":"prompt must be a non-empty string"}' });
    expect(await post('{"prompt":"  "}')).toMatchObject({ status: 400 });
    expect(await post("null")).toMatchObject({ status: 400, body: '{"error":"the body must be a JSON object"}' });
    expect(await post('["x"]')).toMatchObject({ status: 400, body: '{"error":"the body must be a JSON object"}' });
    expect(await post("{")).toMatchObject({ status: 400, body: '{"error":"the body is not JSON"}' });
    // The page sends prompt and model only: a provider (which would spend another key) is refused.
    expect(await post('{"prompt":"x","provider":"openai"}')).toMatchObject({ status: 400, body: '{"error":"unexpected field \\"provider\\": a turn takes prompt and model only"}' });
    expect(await post('{"prompt":"x","model":7}')).toMatchObject({ status: 400, body: '{"error":"model must be a non-empty string when given"}' });
    expect(await post(JSON.stringify({ prompt: "x".repeat((1 << 20) + 1) }))).toMatchObject({ status: 400, body: '{"error":"request body too large"}' });
    expect(await post('{"prompt":"x"}', { "content-type": "text/plain" })).toMatchObject({ status: 403, body: '{"error":"content-type must be application/json"}' });
    expect(await post('{"prompt":"x"}', {})).toMatchObject({ status: 403 });
    expect(await post('{"prompt":"x"}', { ...json, origin: "http://evil.example" })).toMatchObject({ status: 403, body: '{"error":"cross-origin request"}' });
    expect(await call(`${server.url}api/sessions/s1`, { method: "DELETE" })).toMatchObject({ status: 403 });
    expect(await call(`${server.url}api/sessions/s1`, { method: "DELETE", headers: json })).toMatchObject({ status: 404, body: '{"error":"no API at DELETE /api/sessions/s1"}' });
    expect(await call(`${server.url}api/sessions/s1/images`)).toMatchObject({ status: 404, body: '{"error":"no API at GET /api/sessions/s1/images"}' });
    expect(await call(`${server.url}api/sessions/s1/turns`)).toMatchObject({ status: 404 });
    expect(await call(`${server.url}api`)).toMatchObject({ status: 404, body: '{"error":"no API at /api"}' });
    expect(await call(`${server.url}nowhere/else`)).toMatchObject({ status: 404, body: '{"error":"no page at /nowhere/else"}' });
    const port = new URL(server.url).port;
    const named = await call(`${server.url}api/sessions`, { headers: { host: `localhost:${port}` } });
    expect(named).toMatchObject({ status: 200, type: "application/json" });
    expect(named.headers).toMatchObject({ "cache-control": "no-store", "x-content-type-options": "nosniff" });
    expect(await call(`${server.url}api/sessions`, { headers: { host: `127.0.0.1:${Number(port) + 1}` } })).toMatchObject({ status: 403 });
    expect((await post('{"prompt":"x"}', { ...json, origin: `http://localhost:${port}` })).status).toBe(200);
  });
});
