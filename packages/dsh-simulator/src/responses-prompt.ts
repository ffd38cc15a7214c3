import { createHmac } from "node:crypto";

/** A Responses API body, as far as the simulator reads it. */
export interface ResponsesBody {
  readonly model?: unknown;
  readonly input?: unknown;
  readonly instructions?: unknown;
  readonly tools?: unknown;
  readonly reasoning?: unknown;
  readonly store?: unknown;
  readonly previous_response_id?: unknown;
  readonly prompt_cache_options?: unknown;
  readonly prompt_cache_retention?: unknown;
  readonly prompt_cache_key?: unknown;
}

/** One input item as the simulator reads it. */
export type ResponsesItem = { readonly [key: string]: unknown };

/** One rendered stretch of the prompt: an item's text, and whether the item ends at an explicit breakpoint. */
export interface ResponsesSegment {
  readonly text: string;
  readonly breakpoint: boolean;
}

const KEY = "dsh-simulator-reasoning";

/** The encrypted content the simulator gives a reasoning text (stable across runs, so resumed sessions still decrypt). */
export function encryptReasoning(id: string, text: string): string {
  const mac = createHmac("sha256", KEY).update(`${id}\n${text}`).digest("base64url");
  return `${Buffer.from(text).toString("base64url")}.${mac}`;
}

/** Reasoning contents already verified, by item id and content: each request sends back every earlier item. */
const verified = new Set<string>();
let verifiedChars = 0;
/** How many characters of keys are kept before they are dropped and verified again as they come. */
const VERIFIED_CHARS = 1 << 24;

/** The reasoning text of an encrypted content issued for item `id`, or `undefined` when it does not verify. */
export function decryptReasoning(id: string, content: string): string | undefined {
  const [data = "", mac] = content.split(".");
  const text = Buffer.from(data, "base64url").toString("utf8");
  // The id's length first, so no two pairs join to the same key.
  const key = `${id.length}:${id}${content}`;
  if (verified.has(key)) return text;
  if (mac === undefined || encryptReasoning(id, text) !== content) return undefined;
  if (verifiedChars + key.length > VERIFIED_CHARS) {
    verified.clear();
    verifiedChars = 0;
  }
  verified.add(key);
  verifiedChars += key.length;
  return text;
}

/** The input items of a body (a string input is one user message). */
export function inputItems(body: ResponsesBody): readonly ResponsesItem[] {
  if (typeof body.input === "string") return [{ type: "message", role: "user", content: body.input }];
  return Array.isArray(body.input) ? (body.input as ResponsesItem[]).filter((item) => typeof item === "object" && item !== null) : [];
}

/** The content parts of a message or a tool output (a string is one text part). */
export function partsOf(content: unknown): readonly ResponsesItem[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return Array.isArray(content) ? (content as ResponsesItem[]).filter((part) => typeof part === "object" && part !== null) : [];
}

function partText(part: ResponsesItem): string {
  if (part.type === "input_image") return `<|image|>${String(part.image_url ?? "").length}`;
  return String(part.text ?? part.refusal ?? "");
}

function itemText(item: ResponsesItem): string {
  switch (item.type ?? "message") {
    case "message":
      return `<|${String(item.role)}|>${partsOf(item.content).map(partText).join("")}`;
    case "function_call":
      return `<|call|>[${String(item.call_id)}]${String(item.name)}(${String(item.arguments)})`;
    case "function_call_output":
      return `<|result|>[${String(item.call_id)}]${partsOf(item.output).map(partText).join("")}`;
    case "reasoning":
      return `<|think|>${decryptReasoning(String(item.id), String(item.encrypted_content ?? "")) ?? ""}`;
    default:
      return JSON.stringify(item);
  }
}

/** Whether an item's last part carries an explicit cache breakpoint. */
function endsAtBreakpoint(item: ResponsesItem): boolean {
  const parts = partsOf(item.type === "function_call_output" ? item.output : item.content);
  return parts.at(-1)?.prompt_cache_breakpoint !== undefined;
}

/**
 * Renders a Responses body as the model reads it: the tools, the instructions, then each input item
 * (reasoning decrypted), one segment each. Breakpoint markers are not part of the text, so moving
 * one changes nothing the model reads; the segment only remembers that it ends at one.
 */
export function renderResponsesPrompt(body: ResponsesBody): ResponsesSegment[] {
  const segments: ResponsesSegment[] = [];
  if (Array.isArray(body.tools) && body.tools.length > 0) segments.push({ text: `<|tools|>${JSON.stringify(body.tools)}<|end|>`, breakpoint: false });
  if (typeof body.instructions === "string") segments.push({ text: `<|developer|>${body.instructions}<|end|>`, breakpoint: false });
  for (const item of inputItems(body)) segments.push({ text: `${itemText(item)}<|end|>`, breakpoint: endsAtBreakpoint(item) });
  return segments;
}
