import { turnStartEvent } from "dsh-agent";
import type { LogEvent } from "dsh-log";
import { WebError } from "./errors.js";
import type { PageChoice, TimelinePage } from "./view-types.js";

/** How many events a page of a live session shows at most: whole turns, or part of a turn longer than that. */
export const PAGE_EVENTS = 2000;

function turnOf(event: LogEvent): number | undefined {
  const turn = (event.data as { turn?: unknown }).turn;
  return typeof turn === "number" ? turn : undefined;
}

/** The page of `events[start..end)`, with the first and last turn its events name. */
function page(events: readonly LogEvent[], start: number, end: number): TimelinePage {
  let firstTurn: number | undefined;
  let lastTurn: number | undefined;
  for (let index = start; index < end && firstTurn === undefined; index++) firstTurn = turnOf(events[index]!);
  for (let index = end - 1; index >= start && lastTurn === undefined; index--) lastTurn = turnOf(events[index]!);
  return { from: events[start]!.seq, to: events[end - 1]!.seq, ...(firstTurn === undefined ? {} : { firstTurn, lastTurn: lastTurn! }) };
}

/**
 * The session's events cut into pages of at most `pageEvents` events: a page ends where a turn
 * starts, so it holds whole turns, unless one turn alone is longer than a page, which is then cut
 * every `pageEvents` events. With the default, one page holds the whole session.
 */
export function timelinePages(events: readonly LogEvent[], pageEvents = Number.POSITIVE_INFINITY): TimelinePage[] {
  if (!(pageEvents >= 1)) throw new RangeError(`pageEvents must be at least 1, not ${pageEvents}`);
  const pages: TimelinePage[] = [];
  let start = 0;
  let turnStart = 0;
  for (let index = 0; index < events.length; index++) {
    if (turnStartEvent.is(events[index]!)) turnStart = index;
    if (index - start < pageEvents) continue;
    // Full: end at the start of the latest turn, or here when one turn fills the whole page.
    const end = turnStart > start ? turnStart : index;
    pages.push(page(events, start, end));
    start = end;
  }
  if (start < events.length) pages.push(page(events, start, events.length));
  return pages;
}

/**
 * The number (from 1) of the page `choice` names: the page numbered so, the page holding a seq, or
 * without a choice the last page (where the session goes on). `WEB_NOT_FOUND` when there is none.
 */
export function choosePage(pages: readonly TimelinePage[], choice?: PageChoice): number {
  if (choice === undefined) return Math.max(1, pages.length);
  if ("page" in choice) {
    if (Number.isSafeInteger(choice.page) && choice.page >= 1 && choice.page <= pages.length) return choice.page;
    throw new WebError("WEB_NOT_FOUND", `no page ${choice.page}: the session has ${pages.length}`);
  }
  let low = 0;
  let high = pages.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const { from, to } = pages[middle]!;
    if (choice.seq < from) high = middle - 1;
    else if (choice.seq > to) low = middle + 1;
    else return middle + 1;
  }
  throw new WebError("WEB_NOT_FOUND", `no event at seq ${choice.seq} in this session`);
}
