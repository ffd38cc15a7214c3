import { digest, divergence, FingerprintStore, type Fingerprint } from "./diagnosis.js";
import type { MessagesBody, RenderedBlock } from "./messages-prompt.js";
import { renderResponsesPrompt, type ResponsesBody } from "./responses-prompt.js";

/** A block as the model reads it: its cache marker left out. */
function unmarked(block: object): object {
  const { cache_control: _marker, ...rest } = block as Record<string, unknown>;
  return rest;
}

/**
 * What Anthropic's cache diagnostics keep of a Messages request, in the order they check it: the
 * model, the tools, the system prompt, then the message blocks (a change there is `messages_changed`).
 */
export function messagesFingerprint(body: MessagesBody, blocks: readonly RenderedBlock[]): Fingerprint {
  const section = (name: string) => blocks.filter((block) => block.path.startsWith(`${name}.`));
  const base = [...section("tools"), ...section("system")].at(-1)?.cumulativeTokens ?? 0;
  return {
    settings: [
      ["model_changed", String(body.model)],
      ["tools_changed", digest(section("tools").map((block) => unmarked(block.block)))],
      ["system_changed", digest(section("system").map((block) => unmarked(block.block)))],
    ],
    base,
    partsReason: "messages_changed",
    parts: section("messages").map((block) => ({ hash: digest([block.path.split(".")[1], unmarked(block.block)]), end: block.cumulativeTokens })),
  };
}

/**
 * What OpenAI's prompt-cache diagnostics keep of a Responses request, in the order they check it: the
 * model, the cache key, the tools, the reasoning effort, then the input items (`input_changed`).
 */
export function responsesFingerprint(body: ResponsesBody, ends: readonly number[]): Fingerprint {
  const segments = renderResponsesPrompt(body);
  const toolSegments = Array.isArray(body.tools) && body.tools.length > 0 ? 1 : 0;
  return {
    settings: [
      ["model_changed", String(body.model)],
      ["prompt_cache_key_changed", String(body.prompt_cache_key ?? "")],
      ["tools_changed", digest(body.tools ?? [])],
      ["reasoning_effort_changed", String((body.reasoning as { effort?: unknown } | undefined)?.effort ?? "")],
    ],
    base: toolSegments === 1 ? (ends[0] ?? 0) : 0,
    partsReason: "input_changed",
    parts: segments.slice(toolSegments).map((segment, i) => ({ hash: digest(segment.text), end: ends[i + toolSegments] ?? 0 })),
  };
}

/** The simulator's side of both providers' cache diagnostics: fingerprints kept by answer id, compared on request. */
export class Diagnostician {
  readonly #fingerprints = new FingerprintStore();

  /** The fingerprints kept, oldest first, for a cache file. */
  saved(): (readonly [string, Fingerprint])[] {
    return this.#fingerprints.entries();
  }

  /** Takes back fingerprints a cache file kept. */
  restore(entries: Iterable<readonly [string, Fingerprint]>): void {
    this.#fingerprints.restore(entries);
  }

  /**
   * Anthropic's cache diagnosis of a request that asked for one (`diagnostics`): `null` when it extends
   * the previous answer's request or names none, else the first divergence; the request's fingerprint
   * is kept under its answer's id. `undefined` (no field in the answer) when it did not ask.
   */
  messages(body: MessagesBody & { diagnostics?: unknown }, blocks: readonly RenderedBlock[], id: string): object | null | undefined {
    if (typeof body.diagnostics !== "object" || body.diagnostics === null) return undefined;
    const current = messagesFingerprint(body, blocks);
    this.#fingerprints.keep(id, current);
    const previousId = (body.diagnostics as { previous_message_id?: unknown }).previous_message_id;
    if (typeof previousId !== "string") return null;
    const previous = this.#fingerprints.get(previousId);
    if (previous === undefined) return { cache_miss_reason: { type: "previous_message_not_found", cache_missed_input_tokens: 0 } };
    const found = divergence(previous, current);
    return found === undefined ? null : { cache_miss_reason: { type: found.reason, cache_missed_input_tokens: found.missedTokens } };
  }

  /** OpenAI's prompt-cache diagnosis when `prompt_cache_options.comparison_response_id` asks for one; every request's fingerprint is kept. */
  responses(body: ResponsesBody, ends: readonly number[], id: string): object | undefined {
    const current = responsesFingerprint(body, ends);
    this.#fingerprints.keep(id, current);
    const compared = (body.prompt_cache_options as { comparison_response_id?: unknown } | undefined)?.comparison_response_id;
    if (typeof compared !== "string") return undefined;
    const previous = this.#fingerprints.get(compared);
    if (previous === undefined) return { type: "comparison_response_not_found" };
    const found = divergence(previous, current);
    return found === undefined ? { type: "cache_hit" } : { type: "cache_miss", reason: found.reason, cache_missed_tokens: found.missedTokens, comparison_reusable_tokens: found.reusableTokens };
  }
}
