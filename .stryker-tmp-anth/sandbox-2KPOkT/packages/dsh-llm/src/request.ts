import { describeIssues } from "dsh-base";
import { z } from "zod";
import { llmCallConfigSchema, type LlmCallConfig } from "./config.js";
import { LlmError } from "./errors.js";
import { deepFreeze, freezeArrayOfFrozen, isDeepFrozen, type DeepReadonly } from "./freeze.js";
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

/** Parts of requests already validated and deep-frozen; being frozen, they stay valid. */
const validated = new WeakSet<object>();
/** Requests `freezeRequest` returned; freezing one again returns it without a walk. */
const frozenRequests = new WeakSet<object>();
/**
 * The messages of the list `freezeRequest` last accepted, in a private array that is never frozen
 * (V8 reads frozen arrays several times slower). A loop's next request usually repeats them and adds
 * a few: the shared prefix is recognized by identity, one comparison per message, and only the new
 * tail is looked up (and, if new, validated); updating the mirror touches only that tail.
 */
const lastMessages: unknown[] = [];

/** Validates `value` unless it was validated (and frozen) before; returns whether it was checked now. */
function checkPart(schema: z.ZodType, value: unknown, what: string | (() => string)): boolean {
  if (validated.has(value as object)) return false;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const name = typeof what === "string" ? what : what();
    throw new LlmError("LLM_INVALID_REQUEST", `invalid request ${name}: ${describeIssues(parsed.error.issues)}`);
  }
  return true;
}

const requestKeys: ReadonlySet<string> = new Set(["config", "messages", "tools", "previousResponseId", "signal"]);

/**
 * Validates `options` and returns them deep-frozen; throws `LLM_INVALID_REQUEST` on a bad shape.
 * A request it returned before comes back as is; messages and tool lists seen in an earlier frozen
 * request are not validated again.
 */
export function freezeRequest(options: GenerateOptions): FrozenGenerateOptions {
  if (frozenRequests.has(options)) return options;
  for (const key of Object.keys(options)) {
    if (!requestKeys.has(key)) throw new LlmError("LLM_INVALID_REQUEST", `invalid request: unknown key ${key}`);
  }
  const { config, messages, tools, signal } = options;
  const checked: unknown[] = [];
  if (checkPart(llmCallConfigSchema, config, "config")) checked.push(config);
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new LlmError("LLM_INVALID_REQUEST", "invalid request: messages must be a non-empty array");
  }
  const shared = Math.min(lastMessages.length, messages.length);
  let known = 0;
  while (known < shared && messages[known] === lastMessages[known]) known++;
  for (let index = known; index < messages.length; index++) {
    const message = messages[index];
    if (checkPart(messageSchema, message, () => `messages[${index}]`)) checked.push(message);
  }
  if ("tools" in options && checkPart(toolListSchema, tools, "tools")) checked.push(tools);
  if ("previousResponseId" in options && (typeof options.previousResponseId !== "string" || options.previousResponseId === "")) {
    throw new LlmError("LLM_INVALID_REQUEST", "invalid request: previousResponseId must be a non-empty string");
  }
  if ("signal" in options && !(signal instanceof AbortSignal)) {
    throw new LlmError("LLM_INVALID_REQUEST", "invalid request: signal must be an AbortSignal");
  }
  // Messages validated before are deep-frozen (`validated` holds nothing else); freeze the new ones,
  // then the list itself without walking its elements a second time.
  for (const part of checked) deepFreeze(part);
  freezeArrayOfFrozen(messages);
  const frozen = deepFreeze(options);
  for (const part of checked) validated.add(part as object);
  frozenRequests.add(frozen);
  lastMessages.length = known;
  for (let index = known; index < messages.length; index++) lastMessages.push(messages[index]);
  return frozen;
}

const loopRequests = new WeakSet<object>();

/**
 * Marks `request` as one the agent loop dispatched. The mark is a process-local identity: only
 * this exact deep-frozen object carries it, never a copy or an equal-looking one-shot request.
 */
export function markAgentLoopRequest(request: FrozenGenerateOptions): FrozenGenerateOptions {
  if (!isDeepFrozen(request)) {
    throw new LlmError("LLM_INVALID_REQUEST", "only a deep-frozen request can be marked as an agent loop request");
  }
  loopRequests.add(request);
  return request;
}

/** Whether `request` is the very object that {@link markAgentLoopRequest} marked. */
export function isAgentLoopRequest(request: unknown): boolean {
  return loopRequests.has(request as object);
}
