import type { ComponentChildren } from "preact";

/** `text` with every `seq N` turned into a link to that event. */
export function linkSeqs(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of text.matchAll(/seqs? (\d+)/g)) {
    parts.push(text.slice(last, match.index));
    parts.push(
      <a href={`#seq=${match[1]}`} class="seq-link">
        {match[0]}
      </a>,
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}

/** A share as a percentage, or `–`. */
export function percent(share: number | null): string {
  return share === null ? "–" : `${(share * 100).toFixed(1)} %`;
}

/** A time as `YYYY-MM-DD HH:MM:SS` (UTC). */
export function when(time: number): string {
  return new Date(time).toISOString().replace("T", " ").slice(0, 19);
}
