import { clipText, truncateText } from "dsh-base";
import type { ScriptedResponse } from "./scenario.js";

interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: { function?: { name?: unknown } }[];
}

/** The tool through which the `explore` policy hands its work to a subagent when it is offered. */
export const DELEGATE_TOOL = "delegate";

/** What the `explore` policy asks its subagent to do. */
const DELEGATED_TASK = "List the working directory, read the first file you find, and say what it holds.";

/** Whether a request's tools (in any of the four APIs' shapes) include one named `name`. */
function offers(tools: unknown, name: string): boolean {
  return JSON.stringify(tools).includes(`"name":${JSON.stringify(name)}`);
}

/**
 * The built-in `explore` policy, for runs without a scenario: list the working directory, read the
 * first file the listing shows, then answer with what was found; offered a `delegate` tool, it hands
 * that work to a subagent instead (to `delegates` of them at once, each given its part) and reports
 * what they found. A request that offers no tools (a summary call) gets a short extractive summary.
 * Decided from the request alone.
 */
export function exploreResponse(body: { messages?: unknown; tools?: unknown }, delegates = 1): ScriptedResponse {
  const messages = Array.isArray(body.messages) ? (body.messages as WireMessage[]) : [];
  if (!Array.isArray(body.tools)) {
    const input = messages.map((message) => (typeof message.content === "string" ? message.content : "")).join("\n");
    const lines = input.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("["));
    return { text: `Earlier, ${lines.length} lines of conversation; it began: ${truncateText(lines[1] ?? lines[0] ?? "", 160)}` };
  }
  const lastUser = messages.map((message) => message.role).lastIndexOf("user");
  const turn = messages.slice(lastUser + 1);
  const results = turn.filter((message) => message.role === "tool").map((message) => String(message.content ?? ""));
  if (offers(body.tools, DELEGATE_TOOL)) {
    if (delegates === 1) {
      if (results.length === 0) return { text: "Let me hand this to a subagent.", toolCalls: [{ name: DELEGATE_TOOL, arguments: { task: DELEGATED_TASK } }] };
      return { text: `A subagent looked around for me. It reported: ${clipText(results[0]!.replace(/\s+/g, " ").trim(), 200)}` };
    }
    if (results.length === 0) {
      const toolCalls = Array.from({ length: delegates }, (_, i) => ({ name: DELEGATE_TOOL, arguments: { task: `${DELEGATED_TASK} You are subagent ${i + 1} of ${delegates}.` } }));
      return { text: `Let me hand this to ${delegates} subagents at once.`, toolCalls };
    }
    const reports = results.map((result, i) => `${i + 1}: ${clipText(result.replace(/\s+/g, " ").trim(), 120)}`);
    return { text: `${results.length} subagents looked around for me. They reported: ${reports.join(" ")}` };
  }
  if (results.length === 0) {
    return { text: "Let me look around.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] };
  }
  if (results.length === 1) {
    const file = results[0]!
      .split("\n")
      .map((line) => line.trim())
      .find((line) => line !== "" && !line.endsWith("/") && !line.startsWith("Error"));
    if (file !== undefined) return { toolCalls: [{ name: "read_file", arguments: { path: file } }] };
    return { text: `The directory listing was:\n${results[0]}` };
  }
  const read = results[1]!;
  const firstLine = read.split("\n").find((line) => line.trim() !== "") ?? "";
  return { text: `I listed the directory and read one file (${read.length} characters). It begins: ${truncateText(firstLine, 120)}` };
}
