import { clipText } from "dsh-base";
import type { Message } from "dsh-llm";
import { surfaceNodeLabel, type AppendList, type SurfaceNode, type SurfaceView } from "dsh-surface";
import { contentText } from "./timeline.js";
import type { NodeView } from "./view-types.js";

/** How much of a node's text the page shows, in UTF-16 units. */
const TEXT_LIMIT = 2000;

function nodeText(message: Message): string {
  const text = message.role === "system" ? message.content : contentText(message.content);
  return clipText(text, TEXT_LIMIT);
}

/** A request's surface against the previous request's: the nodes that changed, and how many were kept or went. */
export interface NodeDelta {
  readonly nodes: readonly NodeView[];
  readonly kept: number;
  readonly removed: number;
}

/**
 * The nodes of `surface` that `previous` (the previous request's nodes) did not hold, appended or a
 * replacement (their seq is in `replacements`), with the counts kept and removed. When the nodes only
 * extend the previous ones (the same list, `AppendList.startsWith`), only the new ones are read.
 */
export function nodeDelta(previous: AppendList<SurfaceNode> | undefined, surface: SurfaceView, replacements: ReadonlySet<number>): NodeDelta {
  const { nodes } = surface.state;
  const extended = previous !== undefined && nodes.startsWith(previous);
  const before = extended ? undefined : new Set((previous?.toArray() ?? []).map((node) => node.seq));
  const changed: NodeView[] = [];
  for (let index = extended ? previous.length : 0; index < nodes.length; index++) {
    const { seq } = nodes.at(index)!;
    if (before?.has(seq) === true) continue;
    const message = surface.messages.at(index)!;
    changed.push({ node: index, seq, role: surfaceNodeLabel(message), status: replacements.has(seq) ? "replaced" : "appended", text: nodeText(message) });
  }
  const kept = nodes.length - changed.length;
  return { nodes: changed, kept, removed: (previous?.length ?? 0) - kept };
}
