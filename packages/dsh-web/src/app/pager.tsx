import type { TimelinePage } from "../view-types.js";

/** What a page holds, in words: its turns, or its seqs when it holds no turn. */
export function pageLabel(page: TimelinePage): string {
  const seqs = `seqs ${page.from}–${page.to}`;
  if (page.firstTurn === undefined) return seqs;
  const turns = page.firstTurn === page.lastTurn ? `turn ${page.firstTurn}` : `turns ${page.firstTurn}–${page.lastTurn}`;
  return `${turns} (${seqs})`;
}

/** Moves between the pages of a long session: earlier, later, or any page from a list. */
export function Pager({ pages, page, go }: { pages: readonly TimelinePage[]; page: number; go: (page: number) => void }) {
  if (pages.length < 2) return null;
  return (
    <nav class="pager" aria-label="pages of this session">
      <button type="button" disabled={page <= 1} onClick={() => go(page - 1)}>
        ← earlier
      </button>
      <select aria-label="page" value={String(page)} onChange={(event) => go(Number((event.currentTarget as HTMLSelectElement).value))}>
        {pages.map((each, index) => (
          <option key={each.from} value={String(index + 1)}>
            page {index + 1} of {pages.length}: {pageLabel(each)}
          </option>
        ))}
      </select>
      <button type="button" disabled={page >= pages.length} onClick={() => go(page + 1)}>
        later →
      </button>
    </nav>
  );
}
