import { decryptReasoning, inputItems, partsOf, type ResponsesBody, type ResponsesItem } from "./responses-prompt.js";

/** Models the simulator plays on the Responses API that take `prompt_cache_options` and explicit breakpoints. */
const BREAKPOINT_MODELS = /^gpt-(5\.[6-9]|[6-9])/;
/** OpenAI writes at most this many breakpoints per request, the implicit one included. */
export const MAX_RESPONSES_BREAKPOINTS = 4;

/** How the simulator treats one Responses body. */
export type ResponsesVerdict =
  | { readonly refused: true; readonly status: number; readonly message: string }
  | { readonly refused: false; readonly thinking: boolean; readonly implicit: boolean };

/** Whether `model` takes prompt-cache options and breakpoints (GPT-5.6 and later). */
export function takesBreakpoints(model: string): boolean {
  return BREAKPOINT_MODELS.test(model);
}

function refused(message: string, status = 400): ResponsesVerdict {
  return { refused: true, status, message };
}

/** The reasoning id a function call's id says must come before it (`fc_{key}_{i}_rs` follows `rs_{key}`). */
export function requiredReasoning(callItemId: string): string | undefined {
  const match = /^fc_([0-9a-f]+)_\d+_rs$/.exec(callItemId);
  return match === null ? undefined : `rs_${match[1]!}`;
}

/** Whether an item is input (a user, developer or system message, a tool's output) rather than something the model answered. */
function isInput(item: ResponsesItem): boolean {
  if (typeof item.type === "string" && item.type.endsWith("_output")) return true;
  return (item.type === "message" || item.type === undefined) && item.role !== "assistant";
}

/** Whether the reasoning item at `index` is followed, past any further reasoning, by an item the model answered. */
function followed(items: readonly ResponsesItem[], index: number): boolean {
  let next = index + 1;
  while (items[next]?.type === "reasoning") next++;
  const item = items[next];
  return item !== undefined && !isInput(item);
}

/** The first item that breaks the round-trip rules of stateless reasoning, described as the API words it. */
function itemProblem(items: readonly ResponsesItem[]): string | undefined {
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const id = typeof item.id === "string" ? item.id : undefined;
    if (item.type === "reasoning") {
      if (typeof item.encrypted_content !== "string") {
        return `Item with id '${String(id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
      }
      if (decryptReasoning(String(id), item.encrypted_content) === undefined) return `The encrypted content for item ${String(id)} could not be verified.`;
      if (!Array.isArray(item.summary)) return `Missing required parameter: 'summary' of reasoning item ${String(id)}.`;
      if (!followed(items, index)) return `Item '${String(id)}' of type 'reasoning' was provided without its required following item.`;
    }
    if (item.type === "function_call" && id !== undefined) {
      const reasoning = requiredReasoning(id);
      if (reasoning !== undefined && !seen.has(reasoning)) {
        return `Item '${id}' of type 'function_call' was provided without its required 'reasoning' item: '${reasoning}'.`;
      }
    }
    if (id !== undefined) seen.add(id);
  }
  return undefined;
}

function breakpointCount(items: readonly ResponsesItem[]): number {
  let count = 0;
  for (const item of items) {
    for (const part of partsOf(item.type === "function_call_output" ? item.output : item.content)) if (part.prompt_cache_breakpoint !== undefined) count++;
  }
  return count;
}

/**
 * OpenAI's rules for a stateless request, as the simulator enforces them: no server-side history
 * (`previous_response_id` names nothing, as nothing is stored), every reasoning item back with its
 * verifiable encrypted content and followed by an item the model answered, every function call after
 * the reasoning item it came with, and the
 * cache controls only where the model takes them, within the limit, and one lifetime at most.
 */
export function responsesVerdict(body: ResponsesBody): ResponsesVerdict {
  const model = typeof body.model === "string" ? body.model : "";
  if (body.previous_response_id !== undefined) return refused(`Previous response with id '${String(body.previous_response_id)}' not found.`, 404);
  const items = inputItems(body);
  const problem = itemProblem(items);
  if (problem !== undefined) return refused(problem);
  const options = (typeof body.prompt_cache_options === "object" && body.prompt_cache_options !== null ? body.prompt_cache_options : undefined) as { mode?: unknown; ttl?: unknown } | undefined;
  const marks = breakpointCount(items);
  if ((options !== undefined || marks > 0) && !takesBreakpoints(model)) return refused(`prompt_cache_options and prompt_cache_breakpoint are not supported with model '${model}'.`);
  if (options?.ttl !== undefined && body.prompt_cache_retention !== undefined) return refused("prompt_cache_retention cannot be combined with prompt_cache_options.ttl.");
  const implicit = options?.mode !== "explicit";
  if (marks + (implicit ? 1 : 0) > MAX_RESPONSES_BREAKPOINTS) return refused(`A request may write at most ${MAX_RESPONSES_BREAKPOINTS} prompt cache breakpoints; this one has ${marks} explicit${implicit ? " and the implicit one" : ""}.`);
  const effort = (body.reasoning as { effort?: unknown } | undefined)?.effort;
  return { refused: false, thinking: typeof effort === "string" && effort !== "none", implicit };
}
