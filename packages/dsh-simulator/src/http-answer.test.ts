import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { HTTP_FAULTS, deliver, playsHttpFault, sendError } from "./http-answer.js";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Serves one answer written by `answer` on loopback and returns its URL. */
async function serving(answer: (response: ServerResponse) => void | Promise<void>): Promise<string> {
  server = createServer((_request, response) => void answer(response));
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

/** What the client read of a response body, and whether the connection failed before it ended. */
async function read(response: Response): Promise<{ text: string; cut: boolean }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    return { text, cut: false };
  } catch {
    return { text, cut: true };
  }
}

const frames = ["data: 1\n\n", "data: 2\n\n", "data: 3\n\n", "data: 4\n\n", "data: 5\n\n"];

describe("deliver", () => {
  it("streams every frame as server-sent events and ends the response", async () => {
    const response = await fetch(await serving((answer) => deliver(answer, frames, undefined)));
    expect(response.status).toBe(200);
    expect([response.headers.get("content-type"), response.headers.get("cache-control"), response.headers.get("connection")]).toEqual(["text/event-stream", "no-cache", "keep-alive"]);
    expect(await read(response)).toEqual({ text: frames.join(""), cut: false });
  });

  it("cuts the connection after the first half of the frames on `truncate`, after at least one", async () => {
    expect(await read(await fetch(await serving((answer) => deliver(answer, frames, "truncate"))))).toEqual({ text: "data: 1\n\ndata: 2\n\n", cut: true });
    await new Promise((resolve) => server!.close(resolve));
    server = undefined;
    expect(await read(await fetch(await serving((answer) => deliver(answer, frames.slice(0, 1), "truncate"))))).toEqual({ text: "data: 1\n\n", cut: true });
  });

  it("sends the first frame and then one that is not JSON on `malformed`, ending the response", async () => {
    expect(await read(await fetch(await serving((answer) => deliver(answer, frames, "malformed"))))).toEqual({ text: 'data: 1\n\ndata: {"choices": [ this is not json\n\n', cut: false });
  });

  it("holds the connection after the first frame on `stall`, then cuts it", async () => {
    expect(await read(await fetch(await serving((answer) => deliver(answer, frames, "stall", 10))))).toEqual({ text: "data: 1\n\n", cut: true });
  });

  it("lets a stall go as soon as the client leaves, however long it was to last", async () => {
    let delivered!: Promise<void>;
    const url = await serving((answer) => (delivered = deliver(answer, frames, "stall", 600_000)));
    const client = new AbortController();
    const response = await fetch(url, { signal: client.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: 1\n\n");
    client.abort();
    await delivered;
  });
});

describe("sendError", () => {
  const error = async (send: (response: ServerResponse) => void) => {
    const response = await fetch(await serving(send));
    return { status: response.status, type: response.headers.get("content-type"), retry: response.headers.get("retry-after"), body: (await response.json()) as unknown };
  };

  it("answers in each dialect's error shape, with the given headers", async () => {
    expect(await error((answer) => sendError(answer, 429, "slow down", { "retry-after": "0" }, "rate_limit_error", "anthropic"))).toEqual({ status: 429, type: "application/json", retry: "0", body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } } });
    expect((await error((answer) => sendError(answer, 400, "bad", {}, "INVALID_ARGUMENT", "google"))).body).toEqual({ error: { code: 400, message: "bad", status: "INVALID_ARGUMENT" } });
    expect((await error((answer) => sendError(answer, 401, "no key", {}, "authentication_error", "google"))).body).toEqual({ error: { code: 401, message: "no key", status: "UNAUTHENTICATED" } });
    expect((await error((answer) => sendError(answer, 400, "bad", {}, "invalid_request_error", "openai"))).body).toEqual({ error: { message: "bad", type: "invalid_request_error", param: null, code: "invalid_request_error" } });
  });

  it("is OpenAI's shape of a `simulator_error` unless told otherwise", async () => {
    expect(await error((answer) => sendError(answer, 404, "no route"))).toEqual({ status: 404, type: "application/json", retry: null, body: { error: { message: "no route", type: "simulator_error", param: null, code: "simulator_error" } } });
  });
});

describe("playsHttpFault", () => {
  it("refuses with a 429 or a 500 in the dialect's words, retryable at once, and plays nothing else", () => {
    const refuse = vi.fn();
    expect(playsHttpFault({ fault: "http-429" }, refuse, HTTP_FAULTS.gemini)).toBe(true);
    expect(playsHttpFault({ fault: "http-500" }, refuse, HTTP_FAULTS.responses)).toBe(true);
    expect(playsHttpFault({ fault: "truncate" }, refuse, HTTP_FAULTS.chat)).toBe(false);
    expect(playsHttpFault({ text: "ok" }, refuse, HTTP_FAULTS.chat)).toBe(false);
    expect(refuse.mock.calls).toEqual([
      [429, "Resource has been exhausted (e.g. check quota).", "http-429", { "retry-after": "0" }, "RESOURCE_EXHAUSTED"],
      [500, "internal error", "http-500", { "retry-after": "0" }, "server_error"],
    ]);
  });
});
