import { contentsOf, signPayload, signedPayload, type GeminiBody, type GeminiContent } from "./gemini-prompt.js";

/** The simulator's verdict on a Gemini body. */
export type GeminiVerdict = { readonly refused: true; readonly message: string } | { readonly refused: false; readonly thinking: boolean; readonly thoughts: boolean };

const LEVELS = new Set(["minimal", "low", "medium", "high"]);

/** Models that refuse the `minimal` thinking level (Gemini 3.7 and 3.8 Flash answer it with a 400). */
const NO_MINIMAL = /^gemini-3\.[78]-flash/;

/** Whether `model` always thinks and signs its function calls (Gemini 3 and later). */
export function signsCalls(model: string): boolean {
  return /^gemini-([3-9]|\d{2,})/.test(model);
}

/** The index of the first content of the current turn: after the last user content that says something in text. */
function turnStart(contents: readonly GeminiContent[]): number {
  for (let at = contents.length - 1; at >= 0; at--) {
    const content = contents[at]!;
    if (content.role === "user" && content.parts.some((part) => typeof part.text === "string")) return at + 1;
  }
  return 0;
}

function shapeProblem(contents: readonly GeminiContent[]): string | undefined {
  if (contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified";
  for (const [at, content] of contents.entries()) {
    if (content.role !== "user" && content.role !== "model") return `Please use a valid role: user, model (contents[${at}] has ${JSON.stringify(content.role)}).`;
    if (content.parts.length === 0) return `* GenerateContentRequest.contents[${at}].parts: contents.parts must not be empty.`;
    for (const part of content.parts) {
      if (part.text === "" && part.thoughtSignature === undefined) return `Unable to submit request because contents[${at}] has an empty text part. Add a value and try again.`;
      if (part.thoughtSignature !== undefined && (typeof part.thoughtSignature !== "string" || signPayload(signedPayload(content, part)) !== part.thoughtSignature)) {
        return `Corrupted thought signature in contents[${at}].`;
      }
    }
  }
  return undefined;
}

/** A model content's calls must be answered by the next content, one function response per call. */
function pairingProblem(contents: readonly GeminiContent[]): string | undefined {
  for (const [at, content] of contents.entries()) {
    const calls = content.role === "model" ? content.parts.filter((part) => part.functionCall !== undefined).length : 0;
    const next = contents[at + 1];
    if (calls === 0 || next === undefined) continue;
    const responses = next.parts.filter((part) => part.functionResponse !== undefined).length;
    if (next.role !== "user" || responses !== calls) {
      return `Please ensure that the number of function response parts (${responses}) is equal to the number of function call parts of the function call turn (${calls}), at contents[${at + 1}].`;
    }
  }
  return undefined;
}

/**
 * Google's rules for a `generateContent` body, as the simulator enforces them: contents and parts
 * present, no empty text part, every thought signature back unaltered in the part it came in, the
 * first function call of each model step in the current turn signed (Gemini 3 and later), one
 * function response per call, roles `user` and `model` only, and a thinking level the API knows and
 * the model takes (Gemini 3.7 and 3.8 Flash take no `minimal`).
 */
export function geminiVerdict(body: GeminiBody, model: string): GeminiVerdict {
  const contents = contentsOf(body);
  const problem = shapeProblem(contents) ?? pairingProblem(contents);
  if (problem !== undefined) return { refused: true, message: problem };
  if (signsCalls(model)) {
    for (let at = turnStart(contents); at < contents.length; at++) {
      const content = contents[at]!;
      const position = content.parts.findIndex((part) => part.functionCall !== undefined);
      if (content.role === "model" && position >= 0 && content.parts[position]!.thoughtSignature === undefined) {
        const name = String((content.parts[position]!.functionCall as { name?: unknown }).name);
        return { refused: true, message: `Function call is missing a thought_signature in functionCall parts: contents[${at}], function call ${name}, position ${position + 1}. See the Gemini API's thought signatures documentation.` };
      }
    }
  }
  const thinking = (body.generationConfig as { thinkingConfig?: { thinkingLevel?: unknown; includeThoughts?: unknown } } | undefined)?.thinkingConfig;
  if (thinking?.thinkingLevel !== undefined && !LEVELS.has(String(thinking.thinkingLevel))) {
    return { refused: true, message: `Invalid value at 'generation_config.thinking_config.thinking_level' (${JSON.stringify(thinking.thinkingLevel)})` };
  }
  if (thinking?.thinkingLevel === "minimal" && NO_MINIMAL.test(model)) return { refused: true, message: `Thinking level MINIMAL is not supported for model ${model}.` };
  return { refused: false, thinking: signsCalls(model), thoughts: thinking?.includeThoughts === true };
}
