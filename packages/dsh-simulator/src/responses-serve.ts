import { OPENAI_GRANULARITY, type Granularity, type PrefixCache } from "./prefix-cache.js";
import { segmentsTokens } from "./prompt.js";
import { inputItems, partsOf, renderResponsesPrompt, type ResponsesBody } from "./responses-prompt.js";
import { takesBreakpoints } from "./responses-rules.js";

/** What the prompt cache did for one Responses request. */
export interface ResponsesCacheOutcome {
  readonly promptTokens: number;
  readonly cachedTokens: number;
  /**
   * The tokens this request wrote to the cache beyond what it read, which GPT-5.6 and later bill
   * (`cache_write_tokens`); `undefined` for earlier models, whose writes are free and unreported.
   */
  readonly cacheWriteTokens: number | undefined;
  /** The prompt as the model reads it (no breakpoint markers): what item ids are derived from. */
  readonly prompt: string;
  /** The token count at the end of each rendered segment. */
  readonly ends: readonly number[];
}

/** The longest prefix of a `length`-token prompt that `grain` stores (0 under its first length). */
function storedLength(length: number, grain: Granularity): number {
  return length < grain.first ? 0 : grain.first + Math.floor((length - grain.first) / grain.unit) * grain.unit;
}

/**
 * Serves a Responses prompt from the cache as OpenAI documents it: prefixes of 1024 tokens and more
 * in 128-token steps while the implicit breakpoint is on, and on GPT-5.6 and later the exact prefix
 * at any item end an earlier request marked with an explicit breakpoint. Stores what this one writes;
 * on GPT-5.6 and later, the longest prefix it stores past what it read is a billed write.
 */
export function serveResponsesCache(cache: PrefixCache, body: ResponsesBody, implicit: boolean): ResponsesCacheOutcome {
  const model = String(body.model ?? "");
  const segments = renderResponsesPrompt(body);
  const { tokens, ends } = segmentsTokens(segments.map((segment) => segment.text));
  const namespace = `responses:${model}`;
  let cached = implicit ? cache.serve(namespace, tokens, OPENAI_GRANULARITY) : 0;
  let written: number | undefined;
  if (takesBreakpoints(model)) {
    const marked = segments.map((segment) => segment.breakpoint);
    cached = Math.max(cached, cache.serveMarked(namespace, tokens, ends, marked, OPENAI_GRANULARITY.first));
    let stored = implicit ? storedLength(tokens.length, OPENAI_GRANULARITY) : 0;
    ends.forEach((end, i) => {
      if (marked[i] === true && end >= OPENAI_GRANULARITY.first) stored = Math.max(stored, end);
    });
    written = Math.max(0, stored - cached);
  }
  return { promptTokens: tokens.length, cachedTokens: cached, cacheWriteTokens: written, prompt: segments.map((segment) => segment.text).join(""), ends };
}

/** The prompt tokens of a Responses body, as the simulator counts them (for `dsh cache`). */
export function responsesPromptTokens(body: ResponsesBody): Uint32Array {
  return segmentsTokens(renderResponsesPrompt(body).map((segment) => segment.text)).tokens;
}

/** A Responses body seen as Chat Completions messages, for the `explore` policy. */
export function responsesExploreView(body: ResponsesBody): { messages: object[]; tools?: unknown } {
  const text = (content: unknown) => partsOf(content).map((part) => String(part.text ?? "")).join("");
  const messages = inputItems(body).flatMap((item): object[] => {
    if (item.type === "function_call") return [{ role: "assistant", tool_calls: [{ function: { name: item.name } }] }];
    if (item.type === "function_call_output") return [{ role: "tool", content: text(item.output) }];
    if ((item.type ?? "message") === "message") return [{ role: item.role === "developer" ? "system" : item.role, content: text(item.content) }];
    return [];
  });
  return Array.isArray(body.tools) ? { messages, tools: body.tools } : { messages };
}
