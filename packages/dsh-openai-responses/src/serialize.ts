import type { AttachmentStore } from "dsh-attachments";
import { LlmError, addExtensionFields, canonicalJson, joinedBody, mayKeep, requestMemo, type FrozenGenerateOptions, type JsonValue, type Message, type OwnFields } from "dsh-llm";
import { breakpointsFor } from "./breakpoints.js";
import { messageItems } from "./items.js";

/** Options of {@link serializeRequest}. */
export interface ResponsesSerializeOptions {
  /** Whether the model takes explicit cache breakpoints (the logged wire profile says; default `false`). */
  readonly breakpoints?: boolean | undefined;
  /** Resolves image references; required as soon as a message holds an image. */
  readonly attachments?: AttachmentStore | undefined;
}

type Wire = { [key: string]: JsonValue };

/**
 * The fields this adapter writes. An extension may set `prompt_cache_options` (GPT-5.6 and later) or
 * `prompt_cache_retention`, `prompt_cache_key` and the like, but never what keeps the request
 * stateless (`store`, `include`) or anything that would chain it to server-side state.
 */
const OWNED: OwnFields = {
  own: new Set(["model", "input", "instructions", "tools", "reasoning", "max_output_tokens", "temperature", "text", "include", "store", "stream"]),
  fillable: new Set(),
  providerHeld: new Map([
    ["previous_response_id", "a response the provider stored (and every one before it)"],
    ["conversation", "a conversation the provider stores"],
    ["prompt", "a prompt template the provider stores"],
    ["context_management", "an input the provider compacts"],
    ["truncation", "an input the provider may cut (the default keeps every item)"],
  ]),
};

/** What the body asks for besides the model's answer: the encrypted reasoning, so it can go back. */
const INCLUDE = ["reasoning.encrypted_content"];

function invalid(message: string): LlmError {
  return new LlmError("LLM_INVALID_REQUEST", message, { retryable: false });
}

/** The key of the session memo of unmarked frozen messages' wire bytes: a message never changes, so its items are serialized once per session. */
const FRAGMENTS = Symbol("responses fragments");

/** The comma-joined items of one message (empty for an answer that leaves none). */
async function itemBytes(message: Message, attachments: AttachmentStore | undefined, mark: boolean, memo: Map<object, Buffer> | undefined): Promise<Buffer> {
  const items = await messageItems(message, attachments, mark);
  const bytes = Buffer.from(items.map((item) => JSON.stringify(item)).join(","));
  if (memo !== undefined && !mark && mayKeep(message)) memo.set(message, bytes);
  return bytes;
}

/** `prompt_cache_options` with the comparison the cache diagnostics ask for (the previous answer's id), keys sorted. */
function withComparison(options: JsonValue | undefined, previous: string): JsonValue {
  const given = options !== null && typeof options === "object" && !Array.isArray(options) ? (options as { readonly [key: string]: JsonValue }) : {};
  return canonicalJson({ ...given, comparison_response_id: previous });
}

/** Everything but `input`, in a fixed key order; the request's fields that have no place here are refused. */
function envelope(request: FrozenGenerateOptions, breakpoints: boolean): Wire {
  const { config } = request;
  if (config.stop !== undefined) throw invalid("config.stop has no counterpart in the Responses API");
  if (config.cacheTtl !== undefined) throw invalid("config.cacheTtl is for Anthropic's breakpoints: OpenAI's cache lifetime is prompt_cache_options.ttl or prompt_cache_retention, as an extension");
  const wire: Wire = { model: config.model };
  if (request.tools !== undefined) {
    wire.tools = request.tools.map((tool) => ({ type: "function", name: tool.name, description: tool.description, parameters: canonicalJson(tool.parameters), strict: false }));
  }
  if (config.reasoningEffort !== undefined) wire.reasoning = { effort: config.reasoningEffort };
  if (config.maxTokens !== undefined) wire.max_output_tokens = config.maxTokens;
  if (config.temperature !== undefined) wire.temperature = config.temperature;
  const format = config.responseFormat;
  if (format !== undefined) {
    wire.text = { format: { type: "json_schema", name: format.name, schema: canonicalJson(format.schema), ...(format.strict === undefined ? {} : { strict: format.strict }) } };
  }
  wire.include = INCLUDE;
  wire.store = false;
  wire.stream = true;
  addExtensionFields(wire, config.extensions, OWNED);
  if (config.cacheDiagnostics === true) {
    if (!breakpoints) throw invalid(`${config.model} gives no prompt cache diagnostics (GPT-5.6 and later do): leave config.cacheDiagnostics unset`);
    // The first request of a session has nothing to compare with: the opt-in alone sends nothing.
    if (request.previousResponseId !== undefined) wire.prompt_cache_options = withComparison(wire.prompt_cache_options, request.previousResponseId);
  }
  const options = wire.prompt_cache_options;
  if (wire.prompt_cache_retention !== undefined && options !== null && typeof options === "object" && !Array.isArray(options) && "ttl" in options) {
    throw invalid("prompt_cache_retention and prompt_cache_options.ttl both set a lifetime, and the API refuses a request with both: keep one");
  }
  return wire;
}

const TAIL = Buffer.from("]}");

/**
 * The exact HTTP body this adapter sends for `request`, as UTF-8 bytes: compact JSON, keys in a
 * fixed order with `input` last, so each request of a session is the previous one's bytes with new
 * items appended (until a breakpoint moves). `store` is always `false` and nothing names an earlier
 * response: the model sees only what the log holds. Unmarked messages are serialized once per
 * session, and the items a request repeats from the one before are copied in one piece.
 */
export async function serializeRequestBytes(request: FrozenGenerateOptions, options: ResponsesSerializeOptions = {}): Promise<Buffer> {
  const head = JSON.stringify(envelope(request, options.breakpoints ?? false));
  const { messages } = request;
  const marks = breakpointsFor(messages, request.config.cachePolicy, options.breakpoints ?? false, request.config.model);
  for (let index = 1; index < messages.length; index++) if (messages[index]!.role === "system") throw invalid("a system message may only be the first message");
  const memo = requestMemo<Buffer>(request, FRAGMENTS);
  return joinedBody(request, {
    key: FRAGMENTS,
    head: Buffer.from(`${head.slice(0, -1)},"input":[`),
    tail: TAIL,
    marked: [...marks],
    cached: (index) => (marks.has(index) ? undefined : memo?.get(messages[index]!)),
    serialize: (index) => itemBytes(messages[index]!, options.attachments, marks.has(index), memo),
  });
}

/**
 * The input items {@link serializeRequest} writes for one message that carries no breakpoint, as
 * comma-joined JSON (empty for an answer that leaves none): a body's `input` is its messages' items
 * in order, so what a request adds to the one before is the items of its new messages.
 */
export async function serializeMessageItems(message: Message, options: Pick<ResponsesSerializeOptions, "attachments"> = {}): Promise<string> {
  return (await itemBytes(message, options.attachments, false, undefined)).toString("utf8");
}

/** {@link serializeRequestBytes} as a string: the body a log turns back into. Public so a log can be checked against what was sent. */
export async function serializeRequest(request: FrozenGenerateOptions, options: ResponsesSerializeOptions = {}): Promise<string> {
  return (await serializeRequestBytes(request, options)).toString("utf8");
}
