/**
 * The raw JSON text of every function call's `args` object in `text` (a Gemini answer chunk), in
 * document order: what the model wrote, before parsing could reorder its keys (an object's
 * integer-like keys come first in a parsed object, whatever order they arrived in). `text` must be
 * JSON that `JSON.parse` accepted.
 */
export function functionCallArgs(text: string): string[] {
  const found: string[] = [];
  // Per open container: the key it sits under in its parent, the key last read in it, where it starts.
  const stack: { readonly under: string | undefined; key: string | undefined; readonly start: number }[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      const end = stringEnd(text, at);
      // A string followed by a colon is a key of the object it is in.
      if (text[afterSpace(text, end + 1)] === ":") stack.at(-1)!.key = JSON.parse(text.slice(at, end + 1)) as string;
      at = end;
    } else if (char === "{" || char === "[") {
      stack.push({ under: stack.at(-1)?.key, key: undefined, start: at });
    } else if (char === "}" || char === "]") {
      const closed = stack.pop()!;
      if (char === "}" && closed.under === "args" && stack.at(-1)?.under === "functionCall") found.push(text.slice(closed.start, at + 1));
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

/** The index of the first character at or after `from` that is not JSON whitespace. */
function afterSpace(text: string, from: number): number {
  let at = from;
  while (text[at] === " " || text[at] === "\n" || text[at] === "\r" || text[at] === "\t") at++;
  return at;
}
