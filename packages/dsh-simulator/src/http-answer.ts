import type { ServerResponse } from "node:http";
import type { ScriptedResponse } from "./scenario.js";

/** Answers with an HTTP error, recording the request as one that reached no model. */
export type Refuse = (status: number, message: string, fault?: ScriptedResponse["fault"], headers?: Record<string, string>, type?: string) => void;

/** What an HTTP fault says in each dialect: a 429's and a 500's message and error type. */
export const HTTP_FAULTS = {
  chat: { limited: ["rate limited", "rate_limit_error"], failed: ["internal error", "api_error"] },
  responses: { limited: ["rate limited", "rate_limit_error"], failed: ["internal error", "server_error"] },
  gemini: { limited: ["Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED"], failed: ["An internal error has occurred.", "INTERNAL"] },
} as const;

/** Plays a scripted `http-429` or `http-500` in the dialect's words; false for any other script. */
export function playsHttpFault(scripted: ScriptedResponse, refuse: Refuse, words: (typeof HTTP_FAULTS)[keyof typeof HTTP_FAULTS]): boolean {
  if (scripted.fault !== "http-429" && scripted.fault !== "http-500") return false;
  const limited = scripted.fault === "http-429";
  const [message, type] = limited ? words.limited : words.failed;
  refuse(limited ? 429 : 500, message, scripted.fault, { "retry-after": "0" }, type);
  return true;
}

/** An error response in the dialect's shape: Anthropic's `{type: "error", error}`, Google's `{error: {code, message, status}}` or OpenAI's `{error}`. */
export function sendError(response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}, type = "simulator_error", dialect: "anthropic" | "google" | "openai" = "openai"): void {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  const google = { error: { code: status, message, status: type === "authentication_error" ? "UNAUTHENTICATED" : type } };
  response.end(JSON.stringify(dialect === "anthropic" ? { type: "error", error: { type, message } } : dialect === "google" ? google : { error: { message, type, param: null, code: type } }));
}

/** Streams the frames, or plays the scripted fault with them (a `stall` holds the connection `stallMs`, then closes it). */
export async function deliver(response: ServerResponse, frames: readonly string[], fault: ScriptedResponse["fault"], stallMs = 30_000): Promise<void> {
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  if (fault === "truncate") {
    // Let the first half reach the client before the connection drops, as a mid-stream failure would.
    await new Promise((resolve) => response.write(frames.slice(0, Math.max(1, Math.floor(frames.length / 2))).join(""), resolve));
    await new Promise((resolve) => setTimeout(resolve, 20));
    response.destroy();
    return;
  }
  if (fault === "malformed") {
    response.write(frames[0]!);
    response.end('data: {"choices": [ this is not json\n\n');
    return;
  }
  if (fault === "stall") {
    response.write(frames[0]!);
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, stallMs);
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
