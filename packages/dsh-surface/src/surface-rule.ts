import { LogError, type AdmissionRule, type LogEvent } from "dsh-log";
import { AppendList } from "./append-list.js";
import { OpenCalls, type ToolCallRef } from "./open-calls.js";
import { isSurfaceEvent, surfaceEventTypes, type SurfaceEvent, type SurfaceReplace } from "./events.js";

/**
 * A current surface node: the surface event that put it there, named by its `seq`. The node is the
 * logged event itself (what a harness keeps anyway), so the surface costs no memory of its own.
 */
export type SurfaceNode = SurfaceEvent;

/** The current surface: its nodes in order, the replace generation, and tool calls still awaiting results. */
export interface SurfaceState {
  readonly nodes: AppendList<SurfaceNode>;
  readonly generation: number;
  readonly openCalls: OpenCalls;
}

function refuse(event: LogEvent, message: string): never {
  throw new LogError("LOG_RULE_VIOLATION", `surface: ${event.type} at seq ${event.seq}: ${message}`);
}

/** The calls of a node that makes none, shared: most nodes make none. */
const noCalls: readonly ToolCallRef[] = Object.freeze([]);

/** The tool calls an assistant message makes, in order (none for any other node). */
function callsOf(node: SurfaceNode): readonly ToolCallRef[] {
  if (node.type !== "assistant/message") return noCalls;
  // Indexed, since iterating a frozen array allocates; admission runs for every event of a loaded log.
  const { content } = node.data;
  let calls: ToolCallRef[] | undefined;
  for (let index = 0; index < content.length; index++) {
    const block = content[index]!;
    if (block.type !== "tool-call") continue;
    const call = { callId: block.callId, name: block.name };
    if (calls === undefined) calls = [call];
    else calls.push(call);
  }
  return calls ?? noCalls;
}

/** For a tool result: which call it answers, under which tool name, and whether it is an error. */
function resultOf(node: SurfaceNode): { readonly callId: string; readonly toolName: string; readonly isError: boolean } | undefined {
  return node.type === "tool/result" ? node.data : undefined;
}

function appendNode(state: SurfaceState, event: SurfaceEvent): SurfaceState {
  if (event.type === "system/message" && state.nodes.length > 0) {
    refuse(event, "the system prompt lives at surface node 0; change it by replacing node 0");
  }
  let openCalls = state.openCalls;
  const result = resultOf(event);
  if (result !== undefined) {
    const { callId, toolName } = result;
    const call = openCalls.find(callId);
    if (call === undefined) refuse(event, `no tool call ${callId} is awaiting a result`);
    if (call.name !== toolName) refuse(event, `call ${callId} was made to ${call.name}, not ${toolName}`);
    openCalls = openCalls.answer(callId);
  } else if (openCalls.length > 0) {
    refuse(event, `tool calls ${openCalls.toArray().map((open) => open.callId).join(", ")} still await results`);
  }
  const calls = callsOf(event);
  if (calls.length > 0) {
    if (calls.length > 1 && new Set(calls.map((call) => call.callId)).size !== calls.length) refuse(event, "an assistant message repeats a tool call id");
    openCalls = OpenCalls.of(calls);
  }
  return { nodes: state.nodes.append(event), generation: state.generation, openCalls };
}

/** Checks that every tool call in `nodes` is followed directly by its results, and nothing else in between. */
function checkPairing(event: SurfaceEvent, nodes: readonly SurfaceNode[]): void {
  let open = OpenCalls.none;
  const split = () => refuse(event, `the replace would split tool calls ${open.toArray().map((call) => call.callId).join(", ")} from their results`);
  for (const node of nodes) {
    const result = resultOf(node);
    if (result !== undefined) {
      if (open.find(result.callId) === undefined) {
        refuse(event, `the replace would leave the result of ${result.callId} without its call`);
      }
      open = open.answer(result.callId);
      continue;
    }
    if (open.length > 0) split();
    open = OpenCalls.of(callsOf(node));
  }
  if (open.length > 0) split();
}

function replaceNodes(state: SurfaceState, event: SurfaceEvent, replace: SurfaceReplace): SurfaceState {
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
  const before = resultOf(nodes[startIndex]!);
  const after = resultOf(event);
  if (before !== undefined || after !== undefined) {
    if (startIndex !== endIndex || before === undefined || after === undefined) {
      refuse(event, "a tool/result can only replace, or be replaced by, a single tool/result (start === end)");
    }
    if (before.callId !== after.callId || before.toolName !== after.toolName || before.isError !== after.isError) {
      refuse(event, `trimming ${before.callId} must keep its callId, toolName and isError and change only content`);
    }
  }
  const next = [...nodes.slice(0, startIndex), event, ...nodes.slice(endIndex + 1)];
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
    const replace = event.data.replaces;
    return replace === undefined ? appendNode(state, event) : replaceNodes(state, event, replace);
  },
};
