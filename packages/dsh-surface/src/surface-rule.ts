import { LogError, type AdmissionRule, type LogEvent } from "dsh-log";
import { AppendList } from "./append-list.js";
import { OpenCalls, type ToolCallRef } from "./open-calls.js";
import { isSurfaceEvent, surfaceEventTypes, type SurfaceEvent, type SurfaceReplace } from "./events.js";

/** What admission remembers of one current surface node. */
export interface SurfaceNode {
  readonly seq: number;
  readonly type: SurfaceEvent["type"];
  /** For an assistant message: the ids and names of the tool calls it made, in order. */
  readonly calls: readonly { readonly callId: string; readonly name: string }[];
  /** For a tool result: which call it answers, and whether it is an error. */
  readonly result?: { readonly callId: string; readonly toolName: string; readonly isError: boolean };
}

/** The current surface: its nodes in order, the replace generation, and tool calls still awaiting results. */
export interface SurfaceState {
  readonly nodes: AppendList<SurfaceNode>;
  readonly generation: number;
  readonly openCalls: OpenCalls;
}

function refuse(event: LogEvent, message: string): never {
  throw new LogError("LOG_RULE_VIOLATION", `surface: ${event.type} at seq ${event.seq}: ${message}`);
}

/** The calls of a node that makes none, shared: most nodes make none, and admission runs for every event of a loaded log. */
const noCalls: readonly ToolCallRef[] = Object.freeze([]);

function nodeOf(event: SurfaceEvent): SurfaceNode {
  switch (event.type) {
    case "assistant/message": {
      // The list is kept for the life of the surface: a literal holds exactly one call, where a push
      // onto `[]` reserves room for seventeen. Indexed, since iterating a frozen array allocates.
      const { content } = event.data;
      let calls: ToolCallRef[] | undefined;
      for (let index = 0; index < content.length; index++) {
        const block = content[index]!;
        if (block.type !== "tool-call") continue;
        const call = { callId: block.callId, name: block.name };
        if (calls === undefined) calls = [call];
        else calls.push(call);
      }
      return { seq: event.seq, type: event.type, calls: calls ?? noCalls };
    }
    case "tool/result": {
      const { callId, toolName, isError } = event.data;
      return { seq: event.seq, type: event.type, calls: noCalls, result: { callId, toolName, isError } };
    }
    default:
      return { seq: event.seq, type: event.type, calls: noCalls };
  }
}

function appendNode(state: SurfaceState, event: SurfaceEvent, node: SurfaceNode): SurfaceState {
  if (event.type === "system/message" && state.nodes.length > 0) {
    refuse(event, "the system prompt lives at surface node 0; change it by replacing node 0");
  }
  let openCalls = state.openCalls;
  if (node.result !== undefined) {
    const { callId, toolName } = node.result;
    const call = openCalls.find(callId);
    if (call === undefined) refuse(event, `no tool call ${callId} is awaiting a result`);
    if (call.name !== toolName) refuse(event, `call ${callId} was made to ${call.name}, not ${toolName}`);
    openCalls = openCalls.answer(callId);
  } else if (openCalls.length > 0) {
    refuse(event, `tool calls ${openCalls.toArray().map((open) => open.callId).join(", ")} still await results`);
  }
  if (node.calls.length > 0) {
    if (node.calls.length > 1 && new Set(node.calls.map((call) => call.callId)).size !== node.calls.length) refuse(event, "an assistant message repeats a tool call id");
    openCalls = OpenCalls.of(node.calls);
  }
  return { nodes: state.nodes.append(node), generation: state.generation, openCalls };
}

/** Checks that every tool call in `nodes` is followed directly by its results, and nothing else in between. */
function checkPairing(event: SurfaceEvent, nodes: readonly SurfaceNode[]): void {
  let open = OpenCalls.none;
  const split = () => refuse(event, `the replace would split tool calls ${open.toArray().map((call) => call.callId).join(", ")} from their results`);
  for (const node of nodes) {
    if (node.result !== undefined) {
      if (open.find(node.result.callId) === undefined) {
        refuse(event, `the replace would leave the result of ${node.result.callId} without its call`);
      }
      open = open.answer(node.result.callId);
      continue;
    }
    if (open.length > 0) split();
    open = OpenCalls.of(node.calls);
  }
  if (open.length > 0) split();
}

function replaceNodes(state: SurfaceState, event: SurfaceEvent, node: SurfaceNode, replace: SurfaceReplace): SurfaceState {
  if (replace.generation !== state.generation + 1) {
    refuse(event, `replace generation must be ${state.generation + 1}, got ${replace.generation}`);
  }
  if (state.openCalls.length > 0) refuse(event, "cannot replace surface nodes while tool calls await results");
  const nodes = state.nodes.toArray();
  const startIndex = nodes.findIndex((existing) => existing.seq === replace.start);
  const endIndex = nodes.findIndex((existing) => existing.seq === replace.end);
  if (startIndex < 0) refuse(event, `replace start ${replace.start} is not a current surface node`);
  if (endIndex < 0) refuse(event, `replace end ${replace.end} is not a current surface node`);
  if (endIndex < startIndex) refuse(event, `replace end ${replace.end} comes before start ${replace.start}`);
  const touchesNodeZero = startIndex === 0;
  if (touchesNodeZero !== (event.type === "system/message")) {
    refuse(event, "node 0 can only be replaced by a system/message, and a system/message can only replace node 0");
  }
  if (touchesNodeZero && (endIndex !== 0 || nodes[0]?.type !== "system/message")) {
    refuse(event, "a prompt change replaces exactly the system/message at node 0");
  }
  const shadowed = nodes[startIndex]!;
  if (node.result !== undefined || shadowed.result !== undefined) {
    if (startIndex !== endIndex || node.result === undefined || shadowed.result === undefined) {
      refuse(event, "a tool/result can only replace, or be replaced by, a single tool/result (start === end)");
    }
    const before = shadowed.result;
    const after = node.result;
    if (before.callId !== after.callId || before.toolName !== after.toolName || before.isError !== after.isError) {
      refuse(event, `trimming ${before.callId} must keep its callId, toolName and isError and change only content`);
    }
  }
  const next = [...nodes.slice(0, startIndex), node, ...nodes.slice(endIndex + 1)];
  checkPairing(event, next);
  return { nodes: AppendList.of(next), generation: replace.generation, openCalls: OpenCalls.none };
}

/**
 * The admission rule of the surface: system prompt at node 0, tool calls answered before anything
 * else, and replaces that name current nodes in order, bump the generation by one, keep tool
 * calls with their results, and trim a tool result only by a same-call tool result.
 */
export const surfaceAdmission: AdmissionRule<SurfaceState> = {
  name: "dsh-surface/surface",
  types: surfaceEventTypes,
  initial: () => ({ nodes: AppendList.of(), generation: 0, openCalls: OpenCalls.none }),
  admit(state, event) {
    if (!isSurfaceEvent(event)) return state;
    const node = nodeOf(event);
    const replace = event.data.replaces;
    return replace === undefined ? appendNode(state, event, node) : replaceNodes(state, event, node, replace);
  },
};
