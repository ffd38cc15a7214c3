import { createHash } from "node:crypto";
import type { AttachmentStore } from "dsh-attachments";
import { serializeOptionsOfWire as messagesOptionsOfWire, serializeRequest as serializeMessages } from "dsh-anthropic";
import { assertGeminiWire, serializeRequest as serializeGemini } from "dsh-gemini";
import type { RequestHeaderSnapshot } from "dsh-header";
import type { FrozenGenerateOptions } from "dsh-llm";
import { serializeOptionsOfWire as chatOptionsOfWire, serializeRequest as serializeChat, type Dialect } from "dsh-openai-compatible";
import { responsesOptionsOfWire, serializeRequest as serializeResponses } from "dsh-openai-responses";
import { WireError } from "./errors.js";

/** Which HTTP API a request was sent to: Chat Completions in a dialect, Anthropic's Messages API, OpenAI's Responses API, or Google's Gemini API. */
export type WireApi = { readonly api: "chat-completions"; readonly dialect: Dialect } | { readonly api: "messages" } | { readonly api: "responses" } | { readonly api: "gemini" };

/** A request rebuilt from a log (`reconstructRequests` gives them) and the header snapshot it carried. */
export interface LoggedRequest {
  readonly request: FrozenGenerateOptions;
  readonly snapshot: RequestHeaderSnapshot;
}

/**
 * The wire API of the providers dsh's CLI ran before headers logged a wire profile: how a request of
 * such a log was serialized. A log written since names its wire profile in every header.
 */
export const LEGACY_WIRES: Readonly<Record<string, WireApi>> = Object.freeze({
  sim: { api: "chat-completions", dialect: "deepseek" },
  deepseek: { api: "chat-completions", dialect: "deepseek" },
  openai: { api: "chat-completions", dialect: "openai" },
  anthropic: { api: "messages" },
  "sim-anthropic": { api: "messages" },
  "openai-responses": { api: "responses" },
  "sim-openai-responses": { api: "responses" },
  gemini: { api: "gemini" },
  "sim-gemini": { api: "gemini" },
});

/**
 * The wire API a logged request was sent with: its header's wire profile, or for a log written before
 * headers carried one, {@link LEGACY_WIRES} by the logged provider; otherwise `WIRE_UNKNOWN_PROVIDER`.
 */
export function wireApiOf(logged: Pick<LoggedRequest, "snapshot">): WireApi {
  const { wire, config } = logged.snapshot.header;
  if (wire?.api === "messages") return { api: "messages" };
  if (wire?.api === "responses") return { api: "responses" };
  if (wire?.api === "gemini") return { api: "gemini" };
  if (wire !== undefined) return { api: "chat-completions", dialect: chatOptionsOfWire(wire).dialect };
  const legacy = Object.hasOwn(LEGACY_WIRES, config.provider) ? LEGACY_WIRES[config.provider] : undefined;
  if (legacy === undefined) throw new WireError("WIRE_UNKNOWN_PROVIDER", `the log names provider ${config.provider} and no wire profile, so how its requests were serialized cannot be told`);
  return legacy;
}

/**
 * The exact body a logged request was sent as: the request serialized by the dialect its header's
 * wire profile names, with that profile's settings (images read and verified through `attachments`).
 * The bytes are a pure function of the log, its attachment objects and this code.
 */
export function wireBody(logged: LoggedRequest, attachments?: AttachmentStore): Promise<string> {
  const { request, snapshot } = logged;
  const wire = wireApiOf(logged);
  const logs = snapshot.header.wire;
  if (wire.api === "chat-completions") return serializeChat(request, { dialect: wire.dialect, attachments });
  if (wire.api === "responses") return serializeResponses(request, { ...responsesOptionsOfWire(logs), attachments });
  if (wire.api === "gemini") {
    if (logs !== undefined) assertGeminiWire(logs);
    return serializeGemini(request, { attachments });
  }
  return serializeMessages(request, { ...(logs === undefined ? {} : messagesOptionsOfWire(request.config.model, logs)), attachments });
}

/** The SHA-256 of an exact request body, in hex: what a proof, a span or a what-if compares instead of the body. */
export function wireSha256(body: string): string {
  return createHash("sha256").update(body).digest("hex");
}
