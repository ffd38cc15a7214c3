/** Where a container sits in its parent: under a key of an object, or at an index of an array. */
type Place = string | number | undefined;

/** An open object or array while scanning: its place, the key or index it is at now, where it starts. */
interface Open {
  readonly place: Place;
  readonly array: boolean;
  key: string | undefined;
  index: number;
  readonly start: number;
}

/**
 * The path of a call's arguments in an answer chunk: `candidates[0].content.parts[i].functionCall.args`,
 * as the places of the containers from the chunk itself down to the args object (`i` left open).
 */
const ARGS_PATH: readonly (Place | "part")[] = [undefined, "candidates", 0, "content", "parts", "part", "functionCall", "args"];

/**
 * The part index when the containers `open` (with the args object `closed` last) lie on {@link ARGS_PATH}.
 * Places say the kinds: a key's container is an object, an index's an array.
 */
function partOnPath(open: readonly Open[], closed: Open): number | undefined {
  if (open.length !== ARGS_PATH.length - 1) return undefined;
  const places = [...open.map((container) => container.place), closed.place];
  let part: number | undefined;
  for (const [at, expected] of ARGS_PATH.entries()) {
    const place = places[at];
    if (expected === "part") {
      if (typeof place !== "number") return undefined;
      part = place;
    } else if (place !== expected) return undefined;
  }
  return part;
}

/**
 * The raw JSON text of the `args` object of each function call in the first candidate of `text` (a
 * Gemini answer chunk), by the index of its part: what the model wrote, before parsing could reorder
 * its keys (an object's integer-like keys come first in a parsed object, whatever order they arrived
 * in). Only that exact place counts: an object shaped like a call inside the arguments themselves, or
 * in another candidate, is not a call. `text` must be JSON that `JSON.parse` accepted.
 */
export function functionCallArgs(text: string): Map<number, string> {
  const found = new Map<number, string>();
  const stack: Open[] = [];
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') {
      const end = stringEnd(text, at);
      // A string followed by a colon is a key of the object it is in.
      if (text[afterSpace(text, end + 1)] === ":") stack.at(-1)!.key = JSON.parse(text.slice(at, end + 1)) as string;
      at = end;
    } else if (char === "{" || char === "[") {
      const parent = stack.at(-1);
      stack.push({ place: parent === undefined ? undefined : parent.array ? parent.index : parent.key, array: char === "[", key: undefined, index: 0, start: at });
    } else if (char === ",") {
      const parent = stack.at(-1)!;
      if (parent.array) parent.index++;
    } else if (char === "}" || char === "]") {
      const closed = stack.pop()!;
      const part = char === "}" ? partOnPath(stack, closed) : undefined;
      if (part !== undefined) found.set(part, text.slice(closed.start, at + 1));
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
