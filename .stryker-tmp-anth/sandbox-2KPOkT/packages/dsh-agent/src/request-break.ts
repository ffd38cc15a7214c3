import { jsonEquals, type FrozenGenerateOptions, type JsonValue } from "dsh-llm";
import { surfaceNodeLabel } from "dsh-surface";

const sameJson = (a: unknown, b: unknown) => jsonEquals(a as JsonValue, b as JsonValue);

/**
 * Why `next` does not extend `previous` — `the model changed`, `the tools changed`, or `node N (<label>)
 * was replaced` for the first message of `previous` that `next` does not repeat — or `undefined` when
 * `next` sends everything `previous` sent first, so a prefix cache `previous` warmed is read.
 */
export function requestBreak(previous: FrozenGenerateOptions, next: FrozenGenerateOptions): string | undefined {
  if (previous.config.provider !== next.config.provider || previous.config.model !== next.config.model) return "the model changed";
  if (!sameJson(previous.tools ?? [], next.tools ?? [])) return "the tools changed";
  const node = previous.messages.findIndex((message, i) => !sameJson(message, next.messages[i]));
  return node === -1 ? undefined : `node ${node} (${surfaceNodeLabel(previous.messages[node]!)}) was replaced`;
}
