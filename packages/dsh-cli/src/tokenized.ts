import { reconstructRequestStream } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { EventLog } from "dsh-log";
import { geminiPromptTokens, promptTokens, renderMessagesPrompt, responsesPromptTokens, type MessagesBody } from "dsh-simulator";
import type { TokenizedRequest } from "./cache-report.js";
import { wireBody, wireOf } from "./providers.js";

/** A Messages body's prompt tokens, as the simulator counts them. */
function renderedTokens(body: MessagesBody): number[] {
  const tokens: number[] = [];
  renderMessagesPrompt(body, tokens);
  return tokens;
}

/**
 * Every request of `log`, rebuilt, with its exact wire body and its prompt tokens as the simulator
 * counts them (for the Messages API, its cache blocks too), one at a time.
 */
export async function* tokenizedRequests(log: EventLog, attachments: AttachmentStore): AsyncGenerator<TokenizedRequest & { readonly wire: string }> {
  for await (const rebuilt of reconstructRequestStream(log)) {
    const wire = await wireBody(rebuilt, attachments);
    const body = JSON.parse(wire) as MessagesBody;
    const { api } = wireOf(rebuilt);
    // An Anthropic-format endpoint that ignores cache_control (DeepSeek's) caches like a Chat Completions one.
    if (api !== "messages" || rebuilt.snapshot.header.wire?.automaticCache === true) {
      const tokens = api === "responses" ? responsesPromptTokens(body) : api === "gemini" ? geminiPromptTokens(body) : api === "messages" ? renderedTokens(body) : promptTokens(body);
      yield { request: rebuilt, tokens, wire };
      continue;
    }
    const tokens: number[] = [];
    const blocks = renderMessagesPrompt(body, tokens);
    yield { request: rebuilt, tokens, wire, messages: { blocks, model: rebuilt.request.config.model, time: log.get(rebuilt.dispatchSeq)!.time } };
  }
}
