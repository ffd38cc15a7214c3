import { reconstructRequestStream } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { EventLog } from "dsh-log";
import { promptTokens, renderMessagesPrompt, responsesPromptTokens, type MessagesBody } from "dsh-simulator";
import type { TokenizedRequest } from "./cache-report.js";
import { wireBody, wireOf } from "./providers.js";

/**
 * Every request of `log`, rebuilt, with its exact wire body and its prompt tokens as the simulator
 * counts them (for the Messages API, its cache blocks too), one at a time.
 */
export async function* tokenizedRequests(log: EventLog, attachments: AttachmentStore): AsyncGenerator<TokenizedRequest & { readonly wire: string }> {
  for await (const rebuilt of reconstructRequestStream(log)) {
    const wire = await wireBody(rebuilt, attachments);
    const body = JSON.parse(wire) as MessagesBody;
    const { api } = wireOf(rebuilt);
    if (api !== "messages") {
      yield { request: rebuilt, tokens: api === "responses" ? responsesPromptTokens(body) : promptTokens(body), wire };
      continue;
    }
    const tokens: number[] = [];
    const blocks = renderMessagesPrompt(body, tokens);
    yield { request: rebuilt, tokens, wire, messages: { blocks, model: rebuilt.request.config.model, time: log.get(rebuilt.dispatchSeq)!.time } };
  }
}
