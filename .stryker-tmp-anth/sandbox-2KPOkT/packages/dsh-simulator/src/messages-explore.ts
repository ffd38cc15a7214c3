import type { MessagesBlock, MessagesBody } from "./messages-prompt.js";

function text(content: unknown): string {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? (content as MessagesBlock[]).map((block) => (block.type === "text" ? String(block.text ?? "") : "")).join("") : "";
}

/**
 * A Messages API body seen as Chat Completions messages, for the `explore` policy: tool results
 * become `tool` messages, text stays with its role, and `tools` stays absent when none are offered.
 */
export function messagesExploreView(body: MessagesBody): { messages: { role: string; content: string }[]; tools?: unknown } {
  const messages: { role: string; content: string }[] = [];
  if (body.system !== undefined) messages.push({ role: "system", content: text(body.system) });
  for (const message of Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : []) {
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : Array.isArray(message.content) ? (message.content as MessagesBlock[]) : [];
    for (const block of blocks) {
      if (block.type === "tool_result") messages.push({ role: "tool", content: text(block.content) });
    }
    const own = text(blocks.filter((block) => block.type === "text"));
    if (own !== "" || message.role === "assistant") messages.push({ role: String(message.role), content: own });
  }
  return Array.isArray(body.tools) ? { messages, tools: body.tools } : { messages };
}
