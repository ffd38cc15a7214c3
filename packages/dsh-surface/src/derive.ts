import type { Message } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { deriveEventMessage, isSurfaceEvent } from "./events.js";
import { foldSurface } from "./surface-rule.js";

/**
 * The offline projection: the messages of the surface after `events` (a log prefix, indexed by
 * seq), built by folding admission and the public {@link deriveEventMessage}. A live
 * `SurfaceManager` returns equal messages for the same prefix.
 */
export function deriveMessagesFromEvents(events: readonly LogEvent[]): Message[] {
  return foldSurface(events)
    .nodes.toArray()
    .map((node) => {
      const event = events[node.seq];
      if (event === undefined || !isSurfaceEvent(event)) throw new RangeError(`seq ${node.seq} is not in the prefix`);
      return deriveEventMessage(event);
    });
}
