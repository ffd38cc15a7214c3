import type { Message } from "dsh-llm";

/** How a surface node is named to people: `system prompt`, `tool result <name>`, or the message's role. */
export function surfaceNodeLabel(message: Message): string {
  if (message.role === "system") return "system prompt";
  return message.role === "tool" ? `tool result ${message.toolName}` : message.role;
}
