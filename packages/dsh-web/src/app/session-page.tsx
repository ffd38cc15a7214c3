import { useEffect, useState } from "preact/hooks";
import type { PageChoice, RequestView, SessionView, TimelineEntry } from "../view-types.js";
import { Composer } from "./composer.js";
import { percent, when } from "./format.js";
import { Pager } from "./pager.js";
import { RequestCard } from "./request-card.js";
import { WhatIfPanel } from "./what-if.js";

/** The seq a `#seq=N` location names. */
function seqOfHash(): number | undefined {
  const match = /^#seq=(\d+)$/.exec(location.hash);
  return match === null ? undefined : Number(match[1]);
}

/** How many cache breaks the summary links to; the rest are counted. */
const BREAK_LINKS = 50;

/** Whether the page shown holds the event at `seq`. */
function holds(view: SessionView, seq: number): boolean {
  const page = view.pages[view.page - 1];
  return page !== undefined && seq >= page.from && seq <= page.to;
}

/** A link to the session an entry names (its subagent's, or its parent at the answer that called it); its id alone on a static page. */
function SessionLink({ linked, live }: { linked: NonNullable<TimelineEntry["linked"]>; live: boolean }) {
  const words = linked.as === "subagent" ? "subagent session" : "parent session";
  if (!live) return <span class="session-link">{`${words} ${linked.sessionId}`}</span>;
  return (
    <a class="session-link" href={`/sessions/${encodeURIComponent(linked.sessionId)}${linked.seq === undefined ? "" : `#seq=${linked.seq}`}`}>
      {`${words} →`}
    </a>
  );
}

function Entry({ entry, view, request, selected, live }: { entry: TimelineEntry; view: SessionView; request: RequestView | undefined; selected: boolean; live: boolean }) {
  return (
    <li id={`seq-${entry.seq}`} class={`entry kind-${entry.kind}${selected ? " selected" : ""}`} data-seq={entry.seq}>
      <a class="seq" href={`#seq=${entry.seq}`}>
        {entry.seq}
      </a>
      <span class="label">{entry.label}</span>
      {entry.linked === undefined ? null : <SessionLink linked={entry.linked} live={live} />}
      <details open={selected && request === undefined}>
        <summary>{entry.type}</summary>
        <pre>{entry.detail}</pre>
      </details>
      {request === undefined ? null : <RequestCard request={request} live={live ? { sessionId: view.session.id } : undefined} />}
      {live && entry.type === "turn/start" && view.composer !== undefined ? <WhatIfPanel sessionId={view.session.id} at={entry.seq} model={view.composer.model} /> : null}
    </li>
  );
}

/**
 * One session: summary, cache breaks, one page of the timeline with its requests, and (live) the
 * composer. `load` gives the page asked for (by default the last); a link to an event on another
 * page loads that page.
 */
export function SessionPage({ load, live }: { load: (at?: PageChoice) => Promise<SessionView>; live: boolean }) {
  const [view, setView] = useState<SessionView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [selected, setSelected] = useState(seqOfHash());
  const show = (at?: PageChoice) => load(at).then(setView, (cause: Error) => setError(cause.message));
  useEffect(() => {
    const seq = seqOfHash();
    void show(seq === undefined ? undefined : { seq });
    const onHash = () => setSelected(seqOfHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (selected === undefined || view === undefined) return;
    if (holds(view, selected)) document.getElementById(`seq-${selected}`)?.scrollIntoView({ block: "start" });
    else void show({ seq: selected });
  }, [selected, view]);
  if (error !== undefined) return <p class="error">{error}</p>;
  if (view === undefined) return <p>Loading…</p>;
  const { session, breaks } = view;
  /** Shows another page (by default the last), leaving the event a link selected: the link would otherwise bring its page back. */
  const leave = (at?: PageChoice) => {
    if (location.hash !== "") history.replaceState(null, "", `${location.pathname}${location.search}`);
    setSelected(undefined);
    return show(at);
  };
  const go = (page: number) => void leave({ page }).then(() => scrollTo(0, 0));
  const requests = new Map(view.requests.map((request) => [request.number, request]));
  const turns = new Map<number, TimelineEntry[]>();
  // A page cut inside a long turn starts in that turn.
  let currentTurn = view.pages[view.page - 1]?.firstTurn ?? -1;
  for (const entry of view.timeline) {
    if (entry.turn !== undefined) currentTurn = entry.turn;
    turns.set(currentTurn, [...(turns.get(currentTurn) ?? []), entry]);
  }
  return (
    <div class="session">
      <h1>{session.id}</h1>
      <p class="facts">
        created {when(session.createdAt)} · {session.models.join(", ")} · {session.turns} turn(s) · {session.requests} request(s) · cache-read share {percent(session.cacheReadShare)}
        {session.parent === undefined ? null : (
          <>
            {" "}
            · forked from {live ? <a href={`/sessions/${encodeURIComponent(session.parent.id)}#seq=${session.parent.seedLength - 1}`}>{session.parent.id}</a> : session.parent.id} at seq {session.parent.seedLength - 1}
          </>
        )}
      </p>
      <div class="breaks-summary">
        {breaks.length === 0 ? (
          "No cache breaks: every request extends the previous one."
        ) : (
          <>
            {breaks.length} cache break(s):{" "}
            {breaks.slice(0, BREAK_LINKS).map((request) => (
              <a key={request.number} href={`#seq=${request.dispatchSeq}`} class="break-link">
                request {request.number}
              </a>
            ))}
            {breaks.length > BREAK_LINKS ? ` and ${breaks.length - BREAK_LINKS} more` : null}
          </>
        )}
      </div>
      <Pager pages={view.pages} page={view.page} go={go} />
      {[...turns].map(([turn, entries]) => (
        <section key={turn} class="turn">
          <h2>{turn < 0 ? "before the first turn" : `turn ${turn}`}</h2>
          <ol class="timeline">
            {entries.map((entry) => (
              <Entry key={entry.seq} entry={entry} view={view} request={entry.request === undefined ? undefined : requests.get(entry.request)} selected={entry.seq === selected} live={live} />
            ))}
          </ol>
        </section>
      ))}
      <Pager pages={view.pages} page={view.page} go={go} />
      {live && view.composer !== undefined ? <Composer sessionId={session.id} composer={view.composer} onDone={() => void leave()} /> : null}
    </div>
  );
}
