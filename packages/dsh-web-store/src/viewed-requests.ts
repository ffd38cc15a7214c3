import { emptyRequestFold, foldRequestEvent, type RequestFold } from "dsh-agent";
import type { ImageAttachmentRef } from "dsh-attachments";
import { messageImages, type Message } from "dsh-llm";
import type { EventLog } from "dsh-log";
import type { AppendList } from "dsh-surface";
import type { ViewedRequest } from "dsh-web";

/** A request as the session page reads it, with the images its messages carry (each once, in order). */
export interface RequestWithImages extends ViewedRequest {
  readonly images: readonly ImageAttachmentRef[];
}

/**
 * Every dispatched request of `log` as the session page reads it: its step, dispatch seq, header
 * snapshot and images. When a request's messages extend the previous request's, only the new ones
 * are looked at; nothing is rebuilt, so the work grows with the log rather than with its square.
 */
export function requestsWithImages(log: EventLog): RequestWithImages[] {
  const out: RequestWithImages[] = [];
  let fold: RequestFold = emptyRequestFold;
  let last: { readonly messages: AppendList<Message>; readonly images: readonly ImageAttachmentRef[]; readonly seen: Set<string> } | undefined;
  for (const event of log) {
    fold = foldRequestEvent(fold, event);
    const { dispatch } = fold;
    if (dispatch === undefined) continue;
    const messages = fold.surface.messages;
    const fresh = last === undefined ? undefined : messages.itemsAfter(last.messages);
    if (last !== undefined && fresh !== undefined) {
      // An image already carried keeps its first place, as `messageImages` of the whole list keeps it.
      const added = messageImages(fresh).filter((ref) => !last!.seen.has(JSON.stringify(ref)));
      for (const ref of added) last.seen.add(JSON.stringify(ref));
      last = { messages, images: added.length === 0 ? last.images : [...last.images, ...added], seen: last.seen };
    } else {
      const images = messageImages(messages.toArray());
      last = { messages, images, seen: new Set(images.map((ref) => JSON.stringify(ref))) };
    }
    const { turn, step, dispatchSeq, snapshot } = dispatch;
    out.push({ turn, step, dispatchSeq, snapshot, images: last.images });
  }
  return out;
}
