import { createHmac } from "node:crypto";

/** A Gemini `generateContent` body, as far as the simulator reads it. */
export interface GeminiBody {
  readonly systemInstruction?: unknown;
  readonly tools?: unknown;
  readonly contents?: unknown;
  readonly generationConfig?: unknown;
}

/** One part of a content, as the simulator reads it. */
export type GeminiPart = { readonly [key: string]: unknown };

/** One content: its role and parts. */
export interface GeminiContent {
  readonly role: string;
  readonly parts: readonly GeminiPart[];
}

const KEY = "dsh-simulator-thought-signature";

/** The contents of a body, each with its role and the parts that are objects. */
export function contentsOf(body: GeminiBody): GeminiContent[] {
  if (!Array.isArray(body.contents)) return [];
  return (body.contents as unknown[]).map((content) => {
    const { role, parts } = (typeof content === "object" && content !== null ? content : {}) as { role?: unknown; parts?: unknown };
    return { role: String(role ?? "user"), parts: Array.isArray(parts) ? (parts as unknown[]).filter((part): part is GeminiPart => typeof part === "object" && part !== null) : [] };
  });
}

/** JSON with object keys sorted: how the simulator reads arguments, as a provider reads them (not their bytes). */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`;
}

/**
 * What a thought signature on `part` of `content` covers: a call's name and arguments, or all the
 * text (or all the thoughts) the content holds, so a signature moved, dropped or kept over altered
 * content does not verify.
 */
export function signedPayload(content: GeminiContent, part: GeminiPart): string {
  const call = part.functionCall as { name?: unknown; args?: unknown } | undefined;
  if (call !== undefined) return `call\n${String(call.name)}\n${canonical(call.args ?? {})}`;
  const thought = part.thought === true;
  const text = content.parts.filter((other) => other.functionCall === undefined && (other.thought === true) === thought).map((other) => String(other.text ?? "")).join("");
  return `${thought ? "thought" : "text"}\n${text}`;
}

/** The signature the simulator issues for a payload (stable across runs, so resumed sessions still verify). */
export function signPayload(payload: string): string {
  return createHmac("sha256", KEY).update(payload).digest("base64");
}

function partText(part: GeminiPart): string {
  if (typeof part.text === "string") return part.thought === true ? `<|think|>${part.text}` : part.text;
  const call = part.functionCall as { name?: unknown; args?: unknown } | undefined;
  if (call !== undefined) return `<|call|>${String(call.name)}(${canonical(call.args ?? {})})`;
  const result = part.functionResponse as { name?: unknown; response?: unknown; parts?: unknown } | undefined;
  if (result !== undefined) return `<|result|>${String(result.name)}:${canonical(result.response ?? {})}${Array.isArray(result.parts) ? (result.parts as GeminiPart[]).map(partText).join("") : ""}`;
  const inline = part.inlineData as { data?: unknown } | undefined;
  if (inline !== undefined) return `<|image|>${String(inline.data ?? "").length}`;
  return canonical(part);
}

/** Renders a Gemini body as the model reads it: the tools, the system instruction, then each content, one segment each. */
export function renderGeminiPrompt(body: GeminiBody): string[] {
  const segments: string[] = [];
  if (Array.isArray(body.tools) && body.tools.length > 0) segments.push(`<|tools|>${canonical(body.tools)}<|end|>`);
  const system = contentsOf({ contents: body.systemInstruction === undefined ? [] : [body.systemInstruction] })[0];
  if (system !== undefined) segments.push(`<|system|>${system.parts.map(partText).join("")}<|end|>`);
  for (const content of contentsOf(body)) segments.push(`<|${content.role}|>${content.parts.map(partText).join("")}<|end|>`);
  return segments;
}

/** A Gemini body seen as Chat Completions messages, for the `explore` policy. */
export function geminiExploreView(body: GeminiBody): { messages: object[]; tools?: unknown } {
  const messages = contentsOf(body).flatMap((content): object[] =>
    content.parts.flatMap((part): object[] => {
      if (part.functionCall !== undefined) return [{ role: "assistant", tool_calls: [{ function: { name: (part.functionCall as { name?: unknown }).name } }] }];
      const result = part.functionResponse as { response?: { output?: unknown; error?: unknown } } | undefined;
      if (result !== undefined) return [{ role: "tool", content: String(result.response?.output ?? result.response?.error ?? "") }];
      if (typeof part.text === "string" && part.thought !== true) return [{ role: content.role === "model" ? "assistant" : "user", content: part.text }];
      return [];
    }),
  );
  return Array.isArray(body.tools) ? { messages, tools: body.tools } : { messages };
}
