import type { AttachmentStore } from "dsh-attachments";
import { LlmError, addExtensionFields, canonicalJson, holdsImage, requestMemo, type FrozenGenerateOptions, type Message, type OwnFields } from "dsh-llm";
import { layoutWith, messageBlocks, type LaidMessage, type WireBlock, type WireLayout } from "./blocks.js";
import { breakpointPolicy } from "./breakpoints.js";
import { CLAUDE_MODELS, lookupClaudeModel, type ClaudeCatalog } from "./catalog.js";
import { thinkingFields } from "./thinking.js";
import { RawJson, writeWireJson, type WireValue } from "./wire-json.js";

/** Options of {@link serializeRequest}. */
export interface SerializeOptions {
  /** Resolves image references; required as soon as a message holds an image. */
  readonly attachments?: AttachmentStore | undefined;
  /** The models whose thinking style and sampling rules apply (default `CLAUDE_MODELS`). */
  readonly catalog?: ClaudeCatalog | undefined;
}

/** Body fields the adapter writes itself; an extension may set `thinking` only when no effort did. */
const OWNED: OwnFields = {
  own: new Set(["model", "max_tokens", "system", "tools", "messages", "temperature", "stop_sequences", "thinking", "output_config", "diagnostics", "stream"]),
  fillable: new Set(["thinking"]),
};

type Wire = { [key: string]: WireValue };

/** Where a request's cache breakpoints go, by block index of its layout, under its logged `cachePolicy` (none without one); only its config matters. */
export function placeBreakpoints(request: Pick<FrozenGenerateOptions, "config">, layout: WireLayout): number[] {
  const name = request.config.cachePolicy;
  if (name === undefined) return [];
  return breakpointPolicy(name)(layout);
}

/** A block as sent: itself, or a copy with the cache marker when a breakpoint falls on it. */
function sent(block: WireBlock, ttl: string | undefined): WireBlock["value"] {
  return ttl === undefined ? block.value : { ...block.value, cache_control: { type: "ephemeral", ttl } };
}

/** The exact JSON of one block of the body, with its cache marker when a breakpoint falls on it (`ttl`). */
export function wireBlockJson(block: WireBlock, ttl: string | undefined): string {
  return writeWireJson(sent(block, ttl));
}

/** The wire `system` and `tools` of a layout, with markers on the chosen blocks. */
function staticSections(layout: WireLayout, marks: ReadonlySet<number>, ttl: string): { system: WireValue[]; tools: WireValue[] } {
  const system: WireValue[] = [];
  const tools: WireValue[] = [];
  layout.blocks.forEach((block, i) => {
    if (block.section === "messages") return;
    (block.section === "tools" ? tools : system).push(sent(block, marks.has(i) ? ttl : undefined));
  });
  return { system, tools };
}

/**
 * The JSON of the wire `messages` of a layout, with markers on the chosen blocks: what
 * `writeWireJson` writes for them, each unmarked block's JSON taken from `texts`.
 */
function messagesJson(layout: WireLayout, texts: readonly (string | undefined)[], marks: ReadonlySet<number>, ttl: string): string {
  const out: string[] = ["["];
  let open = -1;
  layout.blocks.forEach((block, i) => {
    if (block.section !== "messages") return;
    if (block.message !== open) {
      out.push(open === -1 ? "" : "]},", `{"role":${JSON.stringify(layout.roles[block.message])},"content":[`);
      open = block.message;
    } else out.push(",");
    // Every message block was laid out with its JSON (see laidMessage).
    out.push(marks.has(i) ? wireBlockJson(block, ttl) : texts[i]!);
  });
  out.push(open === -1 ? "]" : "]}]");
  return out.join("");
}

/** The key of the session memo of each frozen, image-free message laid out with its blocks' JSON: a message never changes, so it is laid out once per session. */
const LAID = Symbol("messages laid out");

/** `message` laid out, from the session's memo when kept there; laid out afresh (and kept when it may be) otherwise. */
function laidMessage(message: Message, attachments: AttachmentStore | undefined, memo: Map<object, LaidMessage> | undefined): LaidMessage | Promise<LaidMessage> {
  return memo?.get(message) ?? layOut(message, attachments, memo);
}

async function layOut(message: Message, attachments: AttachmentStore | undefined, memo: Map<object, LaidMessage> | undefined): Promise<LaidMessage> {
  const { role, blocks } = await messageBlocks(message, attachments);
  const laid = { role, blocks, texts: blocks.map((value) => writeWireJson(value)) };
  if (memo !== undefined && Object.isFrozen(message) && !holdsImage(message)) memo.set(message, laid);
  return laid;
}

/** The fields after `messages`: sampling, stop sequences, thinking, then extensions with sorted keys. */
function tailFields(request: FrozenGenerateOptions, maxTokens: number, catalog: ClaudeCatalog): Wire {
  const { config } = request;
  const info = lookupClaudeModel(catalog, config.model);
  const rest: Wire = {};
  if (config.temperature !== undefined) {
    if (info?.temperature === false) throw new LlmError("LLM_INVALID_REQUEST", `${config.model} takes no temperature`);
    rest.temperature = config.temperature;
  }
  if (config.stop !== undefined) rest.stop_sequences = [...config.stop];
  if (config.reasoningEffort !== undefined) Object.assign(rest, thinkingFields(config.reasoningEffort, maxTokens, info));
  // Structured output joins the effort in output_config: {effort?, format}.
  if (config.responseFormat !== undefined) {
    const effort = rest.output_config as { readonly [key: string]: WireValue } | undefined;
    rest.output_config = { ...effort, format: { type: "json_schema", schema: canonicalJson(config.responseFormat.schema) } };
  }
  // The opt-in: the previous answer's id, or null on a session's first request.
  if (config.cacheDiagnostics === true) rest.diagnostics = { previous_message_id: request.previousResponseId ?? null };
  addExtensionFields(rest, config.extensions, OWNED);
  rest.stream = true;
  return rest;
}

/**
 * The exact HTTP body this adapter sends for `request`: compact JSON in a fixed key order (`model`,
 * `max_tokens`, `system`, `tools`, `messages`, `temperature`, `stop_sequences`, `thinking`,
 * `output_config`, `diagnostics`, sorted extensions, `stream`), content always as block arrays, tool inputs as the
 * model's own JSON text, images as verified base64, and `cache_control` markers where the logged
 * `cachePolicy` puts them. Public so a log can be checked against what was sent.
 */
export async function serializeRequest(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<string> {
  const { config } = request;
  if (config.maxTokens === undefined) throw new LlmError("LLM_INVALID_REQUEST", "config.maxTokens is required by the Messages API");
  const catalog = options.catalog ?? CLAUDE_MODELS;
  const memo = requestMemo<LaidMessage>(request, LAID);
  const { layout, texts } = await layoutWith(request.messages, request.tools, (message) => laidMessage(message, options.attachments, memo));
  const marks = new Set(placeBreakpoints(request, layout));
  const ttl = config.cacheTtl ?? "5m";
  const { system, tools } = staticSections(layout, marks, ttl);
  const body: Wire = { model: config.model, max_tokens: config.maxTokens };
  if (system.length > 0) body.system = system;
  if (tools.length > 0) body.tools = tools;
  body.messages = new RawJson(messagesJson(layout, texts, marks, ttl));
  return writeWireJson({ ...body, ...tailFields(request, config.maxTokens, catalog) });
}

/** {@link serializeRequest} as UTF-8 bytes, the form the adapter sends. */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<Buffer> {
  return Buffer.from(await serializeRequest(request, options));
}
