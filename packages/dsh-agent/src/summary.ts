import type { GenerateOptions, LlmCallConfig, Message } from "dsh-llm";
import type { SurfaceNode } from "dsh-surface";

/** The instructions of every summary call; part of the deterministic code over the logged region. */
export const SUMMARY_INSTRUCTIONS =
  "Summarize the conversation below for your own later use. Keep every fact, decision, file name, " +
  "open question and tool result that may still matter; drop pleasantries. Write plain prose.";

/**
 * The surface indexes to summarize: from node 1 (after the system prompt) to just before the
 * `keepRecent` most recent nodes, moved back so a tool call is never split from its results.
 * `undefined` when fewer than two nodes would be summarized.
 */
export function compactionRange(
  nodes: readonly Pick<SurfaceNode, "type">[],
  keepRecent: number,
): { readonly startIndex: number; readonly endIndex: number } | undefined {
  const startIndex = nodes[0]?.type === "system/message" ? 1 : 0;
  let keepFrom = Math.max(startIndex, nodes.length - keepRecent);
  while (keepFrom > startIndex && nodes[keepFrom]?.type === "tool/result") keepFrom--;
  const endIndex = keepFrom - 1;
  return endIndex - startIndex >= 1 ? { startIndex, endIndex } : undefined;
}

function blocksText(blocks: readonly { readonly type: string; readonly text?: string; readonly image?: { readonly digest: string } }[]): string {
  return blocks.map((block) => (block.type === "text" ? (block.text ?? "") : `[image ${block.image?.digest ?? ""}]`)).join("\n");
}

/** A plain-text transcript of messages, the summary call's input. */
export function renderTranscript(messages: readonly Message[]): string {
  return messages
    .map((message) => {
      switch (message.role) {
        case "system":
          return `[system]\n${message.content}`;
        case "user":
          return `[user]\n${blocksText(message.content)}`;
        case "assistant":
          return `[assistant]\n${message.content
            .flatMap((block) => (block.type === "text" ? [block.text] : block.type === "tool-call" ? [`called ${block.name}(${block.arguments})`] : []))
            .join("\n")}`;
        case "tool":
          return `[tool ${message.toolName}${message.isError ? " error" : ""}]\n${blocksText(message.content)}`;
      }
    })
    .join("\n\n");
}

/**
 * The summary call for a logged region: deterministic code over the region's messages and the
 * envelope scalars `compaction/summary` logs (`provider`, `model`, `maxTokens`), nothing else.
 */
export function summaryRequest(region: readonly Message[], scalars: Pick<Required<LlmCallConfig>, "provider" | "model" | "maxTokens">): GenerateOptions {
  return {
    config: { provider: scalars.provider, model: scalars.model, maxTokens: scalars.maxTokens },
    messages: [
      { role: "system", content: SUMMARY_INSTRUCTIONS, source: "compaction" },
      { role: "user", content: [{ type: "text", text: renderTranscript(region) }], source: "compaction" },
    ],
  };
}
