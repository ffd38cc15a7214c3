/**
 * The raw JSON text of every function call's `args` object in `text` (a Gemini answer chunk), in
 * document order: what the model wrote, before parsing could reorder its keys (an object's
 * integer-like keys come first in a parsed object, whatever order they arrived in). `text` must be
 * JSON that `JSON.parse` accepted.
 */
export function functionCallArgs(text: string): string[] {
  const found: string[] = [];
  // Per open container: the key it sits under in its parent, and for an object the key being read.
  const stack: { readonly under: string | undefined; key: string | undefined; readonly start: number; readonly array: boolean }[] = [];
  let expectingKey = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      const end = stringEnd(text, at);
      const top = stack.at(-1);
      if (expectingKey && top !== undefined && !top.array) top.key = JSON.parse(text.slice(at, end + 1)) as string;
      expectingKey = false;
      at = end;
    } else if (char === "{" || char === "[") {
      const top = stack.at(-1);
      stack.push({ under: top === undefined || top.array ? undefined : top.key, key: undefined, start: at, array: char === "[" });
      expectingKey = char === "{";
    } else if (char === "}" || char === "]") {
      const closed = stack.pop()!;
      if (!closed.array && closed.under === "args" && stack.at(-1)?.under === "functionCall") found.push(text.slice(closed.start, at + 1));
    } else if (char === ",") {
      expectingKey = stack.at(-1)?.array === false;
    }
  }
  return found;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let at = start + 1;
  while (text[at] !== '"') at += text[at] === "\\" ? 2 : 1;
  return at;
}
