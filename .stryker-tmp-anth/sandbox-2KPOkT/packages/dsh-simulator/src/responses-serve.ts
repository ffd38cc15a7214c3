import { OPENAI_GRANULARITY, type PrefixCache } from "./prefix-cache.js";
import { segmentsTokens } from "./prompt.js";
import { inputItems, partsOf, renderResponsesPrompt, type ResponsesBody } from "./responses-prompt.js";
import { takesBreakpoints } from "./responses-rules.js";

/** What the prompt cache did for one Responses request. */
export interface ResponsesCacheOutcome {
  readonly promptTokens: number;
  readonly cachedTokens: number;
  /** The prompt as the model reads it (no breakpoint markers): what item ids are derived from. */
  readonly prompt: string;
  /** The token count at the end of each rendered segment. */
  readonly ends: readonly number[];
}

/**
 * Serves a Responses prompt from the cache as OpenAI documents it: prefixes of 1024 tokens and more
 * in 128-token steps while the implicit breakpoint is on, and on GPT-5.6 and later the exact prefix
 * at any item end an earlier request marked with an explicit breakpoint. Stores what this one writes.
 */
export function serveResponsesCache(cache: PrefixCache, body: ResponsesBody, implicit: boolean): ResponsesCacheOutcome {
  const model = String(body.model ?? "");
  const segments = renderResponsesPrompt(body);
  const { tokens, ends } = segmentsTokens(segments.map((segment) => segment.text));
  const namespace = `responses:${model}`;
  let cached = implicit ? cache.serve(namespace, tokens, OPENAI_GRANULARITY) : 0;
  if (takesBreakpoints(model)) {
    cached = Math.max(cached, cache.serveMarked(namespace, tokens, ends, segments.map((segment) => segment.breakpoint), OPENAI_GRANULARITY.first));
  }
  return { promptTokens: tokens.length, cachedTokens: cached, prompt: segments.map((segment) => segment.text).join(""), ends };
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
