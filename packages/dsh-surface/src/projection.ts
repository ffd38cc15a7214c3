import type { Message } from "dsh-llm";
import type { LogEvent } from "dsh-log";
import { AppendList } from "./append-list.js";
import { deriveEventMessage, isSurfaceEvent, type SurfaceEvent } from "./events.js";
import { surfaceAdmission, type SurfaceState } from "./surface-rule.js";

/**
 * The surface after a log prefix: its admission state and the model-visible message of each current
 * node, in node order. Views are immutable; advancing one never changes another.
 */
export interface SurfaceView {
  readonly state: SurfaceState;
  readonly messages: AppendList<Message>;
}

/** The view of a log with no surface events yet. */
export const emptySurface: SurfaceView = Object.freeze({ state: surfaceAdmission.initial(), messages: AppendList.of<Message>() });

/**
 * The one surface projection: the view after `event`. Surface admission is applied (a refused event
 * throws `LOG_RULE_VIOLATION`); an appended node is projected once with {@link deriveEventMessage};
 * a replace rebuilds the list, reusing the messages of the nodes that survive. Pure: the live
 * `SurfaceManager`, `deriveMessagesFromEvents` and request reconstruction all fold with it.
 */
export function advanceSurface(view: SurfaceView, event: LogEvent): SurfaceView {
  if (!isSurfaceEvent(event)) return view;
  const state = surfaceAdmission.admit(view.state, event);
  const message = deriveEventMessage(event);
  if (event.data.replaces === undefined) return { state, messages: view.messages.append(message) };
  const survivors = new Map<number, Message>();
  for (let index = 0; index < view.messages.length; index++) {
    survivors.set(view.state.nodes.at(index)!.seq, view.messages.at(index)!);
  }
  survivors.set(event.seq, message);
  const messages: Message[] = [];
  for (let index = 0; index < state.nodes.length; index++) messages.push(survivors.get(state.nodes.at(index)!.seq)!);
  return { state, messages: AppendList.of(messages) };
}

/**
 * The view of a log whose surface admission has reached `state`: each current node's message,
 * derived from its event (`eventAt(seq)`). Equal to folding the same log with {@link advanceSurface},
 * whose messages are those of the current nodes, without admitting any event a second time.
 */
export function surfaceViewOf(state: SurfaceState, eventAt: (seq: number) => LogEvent | undefined): SurfaceView {
  const messages: Message[] = [];
  for (let index = 0; index < state.nodes.length; index++) messages.push(deriveEventMessage(eventAt(state.nodes.at(index)!.seq) as SurfaceEvent));
  return { state, messages: AppendList.of(messages) };
}

/**
 * The offline projection: the messages of the surface after `events` (a log prefix, in seq order),
 * folded with {@link advanceSurface}. A live `SurfaceManager` returns equal messages for the same prefix.
 */
export function deriveMessagesFromEvents(events: Iterable<LogEvent>): Message[] {
  let view = emptySurface;
  for (const event of events) view = advanceSurface(view, event);
  return view.messages.toArray();
}
