import { putImage, type AttachmentStore } from "dsh-attachments";
import type { ToolOutcome } from "dsh-agent";
import type { DeepReadonly, UserContent } from "dsh-llm";

/** A tool result as an MCP server sends it (`tools/call`), as far as dsh reads it. */
export interface McpCallResult {
  readonly content?: readonly { readonly type: string; readonly [key: string]: unknown }[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
}

type Block = DeepReadonly<UserContent>;

async function imageBlock(part: { readonly [key: string]: unknown }, attachments: AttachmentStore | undefined): Promise<Block> {
  const mime = String(part.mimeType ?? "image");
  const bytes = Buffer.from(String(part.data ?? ""), "base64");
  if (attachments === undefined) return { type: "text", text: `[${mime} image, ${bytes.length} bytes: no attachment store to keep it]` };
  try {
    return { type: "image", image: await putImage(attachments, bytes) };
  } catch (error) {
    return { type: "text", text: `[${mime} image, ${bytes.length} bytes, not kept: ${(error as Error).message}]` };
  }
}

/** One content item as model-visible blocks: text as is, images through the attachment store, the rest named. */
async function blockOf(part: { readonly type: string; readonly [key: string]: unknown }, attachments: AttachmentStore | undefined): Promise<Block> {
  switch (part.type) {
    case "text":
      return { type: "text", text: String(part.text ?? "") };
    case "image":
      return imageBlock(part, attachments);
    case "resource": {
      const resource = (part.resource ?? {}) as { readonly uri?: unknown; readonly text?: unknown };
      return { type: "text", text: typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri)}]` };
    }
    case "resource_link":
      return { type: "text", text: `[resource ${String(part.uri)}${typeof part.name === "string" ? ` (${part.name})` : ""}]` };
    default:
      return { type: "text", text: `[${part.type} content${typeof part.mimeType === "string" ? `, ${part.mimeType}` : ""}]` };
  }
}

/**
 * An MCP tool result as the `tool/result` the model sees: text, images kept in the attachment store
 * (a reference in the log, the bytes as a content-addressed object), other content named in text,
 * structured content as its JSON when the server sent nothing else, and `isError` as is.
 */
export async function toolOutcome(result: McpCallResult, attachments: AttachmentStore | undefined): Promise<ToolOutcome> {
  const content: Block[] = [];
  for (const part of result.content ?? []) content.push(await blockOf(part, attachments));
  if (content.length === 0 && result.structuredContent !== undefined) content.push({ type: "text", text: JSON.stringify(result.structuredContent) });
  return { content, isError: result.isError === true, additionalContexts: [] };
}
