import { buildLoopRequest, emptyRequestFold, foldRequestEvent, type RequestFold } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { RequestHeaderSnapshot } from "dsh-header";
import { RequestFreezer, type Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import type { AppendList } from "dsh-surface";
import type { MeasuredPrompt } from "./cache-report.js";
import { extendGeminiTail, geminiTailOf, type GeminiTail } from "./gemini-measure.js";
import { extendRendered, renderedWhole, type RenderedMessages } from "./messages-measure.js";
import { wireApiOf, wireBody, type WireApi } from "dsh-wire";
import { commonPrefix } from "./common-prefix.js";
import { appendedTokens, wireTokens, type AppendOnlyApi } from "./tokenized.js";

/** What a request was built from, and its prompt's tokens while they are at hand. */
interface Measured {
  readonly snapshot: RequestHeaderSnapshot;
  readonly messages: AppendList<Message>;
  readonly promptTokens: number;
  readonly tokens: ArrayLike<number> | undefined;
  /** For a Messages API request, its blocks as rendered, for the next request to extend. */
  readonly rendered: RenderedMessages | undefined;
  /** For a Gemini request, its contents and last content's tokens, for the next request to extend. */
  readonly gemini?: GeminiTail | undefined;
}

function appendOnly(wire: WireApi): wire is AppendOnlyApi {
  return wire.api === "chat-completions" || wire.api === "responses";
}

/**
 * Every request of `log` measured for the cache report, as `measured(tokenizedRequests(...))` measures
 * it, without rebuilding, serializing and tokenizing every request whole. A Chat Completions or
 * Responses request that only appends messages to the one before it under the same header is counted
 * from its new messages alone: its body is the previous body's messages (their input items) plus
 * theirs, each standing alone, and the simulator tokenizes each message (each item) apart. Such a
 * Gemini request renders only its contents from the previous request's last one on, which its new
 * messages may join (the previous request's contents grow in place). Such a Messages API request keeps
 * the blocks of the one before (a cache marker is not part of a block's text) and lays out, serializes
 * and tokenizes only its new blocks; its layout and markers are still found over all its blocks. Every
 * other request is rebuilt, serialized and tokenized whole, and so is the one before it when its
 * tokens were not kept.
 */
export async function* measuredPrompts(log: EventLog, attachments: AttachmentStore): AsyncGenerator<MeasuredPrompt> {
  const freezer = new RequestFreezer();
  // Checks each appended message as the rebuilt request's freezer would, without building the request.
  const appended = new RequestFreezer();
  const whole = async (snapshot: RequestHeaderSnapshot, messages: readonly Message[], previousResponseId: string | undefined, time: number) => {
    const rebuilt = { snapshot, request: buildLoopRequest(messages, snapshot.header, { previousResponseId, freezer }) };
    return wireTokens(rebuilt, await wireBody(rebuilt, attachments), time);
  };
  let fold: RequestFold = emptyRequestFold;
  let last: Measured | undefined;
  for (const event of log) {
    fold = foldRequestEvent(fold, event);
    const { dispatch } = fold;
    if (dispatch === undefined) continue;
    const { turn, step, dispatchSeq, snapshot, previousResponseId } = dispatch;
    const messages = fold.surface.messages;
    const wire = wireApiOf({ snapshot });
    const request = { turn, step, dispatchSeq, snapshot };
    const fresh = last?.snapshot.header === snapshot.header ? messages.itemsAfter(last.messages) : undefined;
    if (appendOnly(wire) && last !== undefined && fresh !== undefined) {
      if (fresh.length > 0) appended.freeze({ config: snapshot.header.config, messages: fresh });
      let count = last.promptTokens;
      for (const message of fresh) count += (await appendedTokens(wire, message, attachments)).length;
      yield { request, promptTokens: count, sharedTokens: last.promptTokens };
      last = { snapshot, messages, promptTokens: count, tokens: undefined, rendered: undefined };
      continue;
    }
    if (last?.gemini !== undefined && fresh !== undefined) {
      if (fresh.length > 0) appended.freeze({ config: snapshot.header.config, messages: fresh });
      const extended = await extendGeminiTail(last.gemini, last.promptTokens, fresh);
      yield { request, promptTokens: extended.promptTokens, sharedTokens: extended.sharedTokens };
      last = { snapshot, messages, promptTokens: extended.promptTokens, tokens: undefined, rendered: undefined, gemini: extended.tail };
      continue;
    }
    if (last?.rendered !== undefined && fresh !== undefined) {
      if (fresh.length > 0) appended.freeze({ config: snapshot.header.config, messages: fresh });
      const rendered = await extendRendered(last.rendered, snapshot, fresh, attachments);
      const count = rendered.blocks.at(-1)?.cumulativeTokens ?? 0;
      yield { request, promptTokens: count, sharedTokens: last.promptTokens, messages: { blocks: rendered.blocks, model: snapshot.header.config.model, time: event.time } };
      last = { snapshot, messages, promptTokens: count, tokens: undefined, rendered };
      continue;
    }
    const measured = await whole(snapshot, dispatch.messages, previousResponseId, event.time);
    // A request counted from its new messages kept no tokens: the one before this is tokenized again.
    // A previous response id only reaches a body's tail, never its prompt.
    const previous = last === undefined ? [] : (last.tokens ?? (await whole(last.snapshot, last.messages.toArray(), undefined, event.time)).tokens);
    yield { request, promptTokens: measured.tokens.length, sharedTokens: commonPrefix(previous, measured.tokens), messages: measured.messages };
    const rendered = measured.messages === undefined ? undefined : await renderedWhole(snapshot, dispatch.messages, measured.messages.blocks, attachments);
    const gemini = wire.api === "gemini" ? await geminiTailOf(dispatch.messages, attachments) : undefined;
    last = { snapshot, messages, promptTokens: measured.tokens.length, tokens: measured.tokens, rendered, gemini };
  }
}
