const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const LONE_SURROGATE = /\p{Cs}/u;
/** How far past a cut the segmenter reads, in UTF-16 units: one character after the cut, a surrogate pair at most. */
const BOUNDARY_LOOKAHEAD = 2;

/**
 * The longest start of `text` that is at most `maxLength` UTF-16 units long and ends between two
 * characters as a reader sees them (grapheme clusters): never half of a surrogate pair, an emoji
 * sequence or a letter with its accents. Reads only as far as the cut.
 */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = 0;
  // A boundary depends on the characters before it and the one after: segmenting a window just past
  // the cut finds the same boundaries up to it, without handing the whole text to the segmenter.
  for (const { index, segment } of graphemes.segment(text.slice(0, maxLength + BOUNDARY_LOOKAHEAD))) {
    if (index + segment.length > maxLength) break;
    end = index + segment.length;
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
