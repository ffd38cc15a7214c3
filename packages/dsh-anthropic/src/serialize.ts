import type { AttachmentStore } from "dsh-attachments";
import { LlmError, addExtensionFields, canonicalJson, joinedBody, type FrozenGenerateOptions, type OwnFields } from "dsh-llm";
import type { WireBlock, WireLayout } from "./blocks.js";
import { breakpointPolicy } from "./breakpoints.js";
import { CLAUDE_MODELS, lookupClaudeModel, type ClaudeCatalog } from "./catalog.js";
import { messagesParts, sent } from "./message-bytes.js";
import { requestBlocks, sessionLayout } from "./session-layout.js";
import { thinkingFields } from "./thinking.js";
import { writeWireJson, type WireValue } from "./wire-json.js";

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
  providerHeld: new Map([
    ["container", "the files and state of a code-execution container the provider keeps"],
    ["context_management", "an input the provider edits (tool results or thinking it clears)"],
    ["mcp_servers", "tool lists the provider fetches from remote MCP servers"],
  ]),
};

type Wire = { [key: string]: WireValue };

/** Where a request's cache breakpoints go, by block index of its layout, under its logged `cachePolicy` (none without one); only its config matters. */
export function placeBreakpoints(request: Pick<FrozenGenerateOptions, "config">, layout: WireLayout): number[] {
  const name = request.config.cachePolicy;
  if (name === undefined) return [];
  return breakpointPolicy(name)(layout);
}

/** The exact JSON of one block of the body, with its cache marker when a breakpoint falls on it (`ttl`). */
export function wireBlockJson(block: WireBlock, ttl: string | undefined): string {
  return writeWireJson(sent(block.value, ttl));
}

/** The wire `system` and `tools` of a layout (the blocks before its messages), with markers on the chosen blocks. */
function staticSections(layout: WireLayout, marks: ReadonlySet<number>, ttl: string): { system: WireValue[]; tools: WireValue[] } {
  const system: WireValue[] = [];
  const tools: WireValue[] = [];
  for (const [i, block] of layout.blocks.entries()) {
    if (block.section === "messages") break;
    (block.section === "tools" ? tools : system).push(sent(block.value, marks.has(i) ? ttl : undefined));
  }
  return { system, tools };
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
 * The exact HTTP body this adapter sends for `request`, as UTF-8 bytes: compact JSON in a fixed key
 * order (`model`, `max_tokens`, `system`, `tools`, `messages`, `temperature`, `stop_sequences`,
 * `thinking`, `output_config`, `diagnostics`, sorted extensions, `stream`), content always as block
 * arrays, tool inputs as the model's own JSON text, images as verified base64, and `cache_control`
 * markers where the logged `cachePolicy` puts them. In a session, each message is laid out and
 * written once, and what a request repeats from the one before is copied in one piece.
 */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<Buffer> {
  const { config } = request;
  if (config.maxTokens === undefined) throw new LlmError("LLM_INVALID_REQUEST", "config.maxTokens is required by the Messages API");
  const catalog = options.catalog ?? CLAUDE_MODELS;
  const blocksOf = requestBlocks(request, options.attachments);
  const indexed = await sessionLayout(request, blocksOf);
  const { layout } = indexed;
  const marks = new Set(placeBreakpoints(request, layout));
  const ttl = config.cacheTtl ?? "5m";
  const { system, tools } = staticSections(layout, marks, ttl);
  const head: Wire = { model: config.model, max_tokens: config.maxTokens };
  if (system.length > 0) head.system = system;
  if (tools.length > 0) head.tools = tools;
  const rest = writeWireJson(tailFields(request, config.maxTokens, catalog));
  // The last wire message is closed after the last message's bytes.
  const close = layout.blocks.at(-1)?.section === "messages" ? "]}]" : "]";
  return joinedBody(request, {
    ...messagesParts(request, indexed, marks, ttl, blocksOf),
    head: Buffer.from(`${writeWireJson(head).slice(0, -1)},"messages":[`),
    tail: Buffer.from(`${close},${rest.slice(1)}`),
  });
}

/** {@link serializeRequestBytes} as a string: the body a log turns back into. Public so a log can be checked against what was sent. */
export async function serializeRequest(request: FrozenGenerateOptions, options: SerializeOptions = {}): Promise<string> {
  return (await serializeRequestBytes(request, options)).toString("utf8");
}
