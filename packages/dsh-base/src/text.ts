const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const LONE_SURROGATE = /\p{Cs}/u;
/** How far past a cut the segmenter reads, in UTF-16 units: one character after the cut, a surrogate pair at most. */
const BOUNDARY_LOOKAHEAD = 2;

/** How far before a cut a start for the segmenter is looked for, in UTF-16 units. */
const START_LOOKBEHIND = 256;

/**
 * Whether a grapheme boundary surely lies before `text[at]`: between two ASCII characters other than
 * CR LF there always is one, and no rule carries across it.
 */
function asciiBoundary(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return before < 0x80 && after < 0x80 && !(before === 0x0d && after === 0x0a);
}

/**
 * The longest start of `text` that is at most `maxLength` UTF-16 units long and ends between two
 * characters as a reader sees them (grapheme clusters): never half of a surrogate pair, an emoji
 * sequence or a letter with its accents. Reads only a window around the cut: from the last sure
 * boundary before it (two ASCII characters, when there is one close by) to just past it.
 */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let start = maxLength;
  while (start > 0 && start > maxLength - START_LOOKBEHIND && !asciiBoundary(text, start)) start--;
  if (!asciiBoundary(text, start)) start = 0;
  let end = start;
  // A boundary depends on the characters before it and the one after: segmenting a window just past
  // the cut finds the same boundaries up to it, without handing the whole text to the segmenter.
  for (const { index, segment } of graphemes.segment(text.slice(start, maxLength + BOUNDARY_LOOKAHEAD))) {
    if (start + index + segment.length > maxLength) break;
    end = start + index + segment.length;
  }
  return text.slice(0, end);
}

/** `text` itself when it fits in `maxLength` UTF-16 units, else its {@link truncateText} start followed by `…`, for display. */
export function clipText(text: string, maxLength: number): string {
  return text.length > maxLength ? `${truncateText(text, maxLength - 1)}…` : text;
}

/** The UTF-16 index of the first lone surrogate in `text` (half of a character, which no provider accepts), or -1. */
export function loneSurrogateIndex(text: string): number {
  return text.search(LONE_SURROGATE);
}
