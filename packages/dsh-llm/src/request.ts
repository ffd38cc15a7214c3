import { describeIssues } from "dsh-base";
import { z } from "zod";
import { llmCallConfigSchema, type LlmCallConfig } from "./config.js";
import { LlmError } from "./errors.js";
import { deepFreeze, type DeepReadonly } from "./freeze.js";
import { JoinedBytes } from "./joined-bytes.js";
import { messageSchema, type Message } from "./messages.js";
import { toolSchemaSchema, type ToolSchema } from "./tools.js";

const toolListSchema = z.array(toolSchemaSchema).min(1);

/** Zod schema of the serializable part of {@link GenerateOptions} (everything but the signal). */
export const generateOptionsSchema = z.strictObject({
  config: llmCallConfigSchema,
  messages: z.array(messageSchema).min(1),
  tools: toolListSchema.exactOptional(),
  previousResponseId: z.string().min(1).exactOptional(),
});

/** One model request: the call config, the messages (system first) and the tools offered. */
export interface GenerateOptions {
  readonly config: LlmCallConfig;
  readonly messages: readonly Message[];
  readonly tools?: readonly ToolSchema[];
  /**
   * The provider's id of the answer to the previous request, which `config.cacheDiagnostics` asks the
   * provider to compare this one with. The agent takes it from the log, never from memory.
   */
  readonly previousResponseId?: string;
  /** Cancels the call; stays live when the request is frozen. */
  readonly signal?: AbortSignal;
}

/** A deep-frozen {@link GenerateOptions}: any attempt to mutate it throws in strict mode. */
export type FrozenGenerateOptions = DeepReadonly<GenerateOptions>;

/**
 * Requests a freezer returned, each with that freezer: freezing one again returns it without a walk,
 * only these can be marked, and an adapter finds the session's memo through it.
 */
const frozenRequests = new WeakMap<object, RequestFreezer>();

const requestKeys: ReadonlySet<string> = new Set(["config", "messages", "tools", "previousResponseId", "signal"]);

/** Validates `value` against `schema`, throwing `LLM_INVALID_REQUEST` naming the part. */
function check(schema: z.ZodType, value: unknown, what: string | (() => string)): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const name = typeof what === "string" ? what : what();
    throw new LlmError("LLM_INVALID_REQUEST", `invalid request ${name}: ${describeIssues(parsed.error.issues)}`);
  }
}

/** The joined bytes a freezer keeps for `key`, made on first use with `separator`: private to the freezer, reached only from here. */
let joinedBytesOf: (freezer: RequestFreezer, key: symbol, separator: string) => JoinedBytes;

/**
 * Validates and deep-freezes requests, remembering what it accepted last: the config, the tool list
 * and the messages (in a private array that is never frozen: V8 reads frozen arrays several times
 * slower). A loop's next request repeats the previous messages and adds a few, so the shared prefix
 * is recognized by identity, one comparison per message, and only new messages are validated and
 * frozen. One freezer per session: dropping the session drops what it remembers, and nothing is
 * recorded process-wide but the request objects themselves.
 */
export class RequestFreezer {
  #config: unknown;
  #tools: unknown;
  readonly #messages: unknown[] = [];
  /** The members of `#messages`, for a list that reorders or drops some of them (a compaction). */
  #known = new Set<unknown>();
  readonly #memos = new Map<symbol, Map<object, unknown>>();
  readonly #joined = new Map<symbol, JoinedBytes>();

  /**
   * A cache an adapter keeps for this session under its own `key` (the wire bytes of each message,
   * say), held as long as the freezer is: nothing process-wide grows with the sessions. Entries of
   * messages a later request no longer holds (a compaction replaced them) are dropped.
   */
  memo<V>(key: symbol): Map<object, V> {
    let memo = this.#memos.get(key);
    if (memo === undefined) this.#memos.set(key, (memo = new Map()));
    return memo as Map<object, V>;
  }

  static {
    joinedBytesOf = (freezer, key, separator) => {
      let joined = freezer.#joined.get(key);
      if (joined === undefined) freezer.#joined.set(key, (joined = new JoinedBytes(separator)));
      return joined;
    };
  }

  /**
   * Validates `options` and returns them deep-frozen, in place; throws `LLM_INVALID_REQUEST` on a bad
   * shape and then freezes nothing. A request a freezer returned before comes back as is.
   */
  freeze(options: GenerateOptions): FrozenGenerateOptions {
    if (frozenRequests.has(options)) return options;
    for (const key of Object.keys(options)) {
      if (!requestKeys.has(key)) throw new LlmError("LLM_INVALID_REQUEST", `invalid request: unknown key ${key}`);
    }
    const { config, messages, tools, signal } = options;
    const fresh: unknown[] = [];
    if (config !== this.#config || config === undefined) {
      check(llmCallConfigSchema, config, "config");
      fresh.push(config);
    }
    if (!Array.isArray(messages) || messages.length === 0) {
      throw new LlmError("LLM_INVALID_REQUEST", "invalid request: messages must be a non-empty array");
    }
    const shared = Math.min(this.#messages.length, messages.length);
    let known = 0;
    while (known < shared && messages[known] === this.#messages[known]) known++;
    for (let index = known; index < messages.length; index++) {
      const message = messages[index];
      if (this.#known.has(message)) continue;
      check(messageSchema, message, () => `messages[${index}]`);
      fresh.push(message);
    }
    if ("tools" in options && (tools !== this.#tools || tools === undefined)) {
      check(toolListSchema, tools, "tools");
      fresh.push(tools);
    }
    if ("previousResponseId" in options && (typeof options.previousResponseId !== "string" || options.previousResponseId === "")) {
      throw new LlmError("LLM_INVALID_REQUEST", "invalid request: previousResponseId must be a non-empty string");
    }
    if ("signal" in options && !(signal instanceof AbortSignal)) {
      throw new LlmError("LLM_INVALID_REQUEST", "invalid request: signal must be an AbortSignal");
    }
    // Every part is valid: freeze what is new, then the containers (every message is now deep-frozen).
    for (const part of fresh) deepFreeze(part);
    Object.freeze(messages);
    Object.freeze(options);
    frozenRequests.set(options, this);
    this.#remember(options, known);
    return options as FrozenGenerateOptions;
  }

  #remember(options: GenerateOptions, known: number): void {
    this.#config = options.config;
    if ("tools" in options) this.#tools = options.tools;
    const { messages } = options;
    if (known < this.#messages.length) {
      const known = new Set<unknown>(messages);
      this.#known = known;
      for (const memo of this.#memos.values()) for (const message of memo.keys()) if (!known.has(message)) memo.delete(message);
    } else for (let index = known; index < messages.length; index++) this.#known.add(messages[index]);
    this.#messages.length = known;
    for (let index = known; index < messages.length; index++) this.#messages.push(messages[index]);
  }
}

/**
 * Validates `options` and returns them deep-frozen, in place; throws `LLM_INVALID_REQUEST` on a bad
 * shape. A request frozen before comes back as is. Each call checks the whole request: a loop that
 * sends growing history uses one {@link RequestFreezer} per session instead.
 */
export function freezeRequest(options: GenerateOptions): FrozenGenerateOptions {
  return new RequestFreezer().freeze(options);
}

/**
 * The joined bytes kept beside the memo `key` of the session whose freezer froze `request`; fresh
 * ones for a request frozen otherwise. One key joins with one `separator` (the first one given).
 */
export function requestJoinedBytes(request: FrozenGenerateOptions, key: symbol, separator = ","): JoinedBytes {
  const freezer = frozenRequests.get(request);
  return freezer === undefined ? new JoinedBytes(separator) : joinedBytesOf(freezer, key, separator);
}

/** The memo `key` of the session whose freezer froze `request` (see {@link RequestFreezer.memo}); none for a request frozen otherwise. */
export function requestMemo<V>(request: FrozenGenerateOptions, key: symbol): Map<object, V> | undefined {
  return frozenRequests.get(request)?.memo<V>(key);
}

const loopRequests = new WeakSet<object>();

/**
 * Marks `request` as one the agent loop dispatched. The mark is a process-local identity: only
 * this exact deep-frozen object carries it, never a copy or an equal-looking one-shot request.
 */
export function markAgentLoopRequest(request: FrozenGenerateOptions): FrozenGenerateOptions {
  if (!frozenRequests.has(request)) {
    throw new LlmError("LLM_INVALID_REQUEST", "only a deep-frozen request (one freezeRequest returned) can be marked as an agent loop request");
  }
  loopRequests.add(request);
  return request;
}

/** Whether `request` is the very object that {@link markAgentLoopRequest} marked. */
export function isAgentLoopRequest(request: unknown): boolean {
  return loopRequests.has(request as object);
}
