import { pieces } from "./messages-stream.js";
import { canonical, signPayload } from "./gemini-prompt.js";
import { tokenize } from "./prompt.js";
import type { ScriptedResponse } from "./scenario.js";

/** What one Gemini answer is served from besides its script. */
export interface GeminiAnswer {
  readonly responseId: string;
  readonly model: string;
  /** Whether the model thinks and signs (Gemini 3 and later). */
  readonly thinking: boolean;
  /** Whether the request asked for thought summaries (`includeThoughts`). */
  readonly thoughts: boolean;
  readonly promptTokens: number;
  readonly cachedTokens: number;
}

/** A call's arguments as JSON text: an object as compact JSON, a string as is when it is a JSON object, else as a JSON string (malformed on purpose). */
function argsText(args: NonNullable<ScriptedResponse["toolCalls"]>[number]["arguments"]): string {
  if (typeof args !== "string") return JSON.stringify(args);
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return args;
  } catch {
    // Not JSON: sent as a string, which no Gemini client can take as arguments.
  }
  return JSON.stringify(args);
}

/**
 * The SSE frames of a Gemini answer (`data: {chunk}` each): thought summary pieces when asked for,
 * text pieces, then the function calls in one chunk (without ids, as the Gemini API often sends
 * them; the first signed when the model thinks), and a last chunk with the finish reason, the usage
 * and, for a thinking model's text answer, the signature in an empty text part. An `overloaded`
 * fault ends with an error object instead.
 */
export function geminiFrames(answer: GeminiAnswer, scripted: ScriptedResponse): string[] {
  const head = `"responseId":${JSON.stringify(answer.responseId)},"modelVersion":${JSON.stringify(answer.model)}`;
  const chunk = (parts: readonly string[], finish = "", usage = "") => `data: {"candidates":[{"content":{"parts":[${parts.join(",")}],"role":"model"}${finish},"index":0}]${usage},${head}}\r\n\r\n`;
  const frames: string[] = [];
  const reasoning = answer.thinking ? (scripted.reasoning ?? "") || "Let me work out the next step." : "";
  if (answer.thoughts && reasoning !== "") for (const piece of pieces(reasoning)) frames.push(chunk([`{"text":${JSON.stringify(piece)},"thought":true}`]));
  const text = scripted.text ?? "";
  for (const piece of pieces(text)) frames.push(chunk([`{"text":${JSON.stringify(piece)}}`]));
  const calls = scripted.toolCalls ?? [];
  if (calls.length > 0) {
    const parts = calls.map((call, i) => {
      const args = argsText(call.arguments);
      let signature = "";
      if (answer.thinking && i === 0) signature = `,"thoughtSignature":${JSON.stringify(signPayload(`call\n${call.name}\n${canonical(JSON.parse(args))}`))}`;
      return `{"functionCall":{"name":${JSON.stringify(call.name)},"args":${args}}${signature}}`;
    });
    frames.push(chunk(parts));
  }
  if (scripted.fault === "overloaded") return [...frames, `data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}\r\n\r\n`];
  const thoughtTokens = tokenize(reasoning).length;
  const answerTokens = tokenize(text + calls.map((call) => call.name + JSON.stringify(call.arguments)).join("")).length;
  const usage = {
    promptTokenCount: answer.promptTokens,
    candidatesTokenCount: answerTokens,
    totalTokenCount: answer.promptTokens + answerTokens + thoughtTokens,
    ...(answer.cachedTokens > 0 ? { cachedContentTokenCount: answer.cachedTokens } : {}),
    ...(answer.thinking ? { thoughtsTokenCount: thoughtTokens } : {}),
  };
  const reason = scripted.finishReason === "length" ? "MAX_TOKENS" : "STOP";
  const last = answer.thinking && calls.length === 0 ? [`{"text":"","thoughtSignature":${JSON.stringify(signPayload(`text\n${text}`))}}`] : [`{"text":""}`];
  frames.push(chunk(last, `,"finishReason":"${reason}"`, `,"usageMetadata":${JSON.stringify(usage)}`));
  return frames;
}
