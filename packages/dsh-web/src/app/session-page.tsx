import { useEffect, useState } from "preact/hooks";
import type { SessionView, TimelineEntry } from "../view-types.js";
import { Composer } from "./composer.js";
import { percent, when } from "./format.js";
import { RequestCard } from "./request-card.js";
import { WhatIfPanel } from "./what-if.js";

/** The seq a `#seq=N` location names. */
function seqOfHash(): number | undefined {
  const match = /^#seq=(\d+)$/.exec(location.hash);
  return match === null ? undefined : Number(match[1]);
}

function Entry({ entry, view, selected, live }: { entry: TimelineEntry; view: SessionView; selected: boolean; live: boolean }) {
  const request = entry.request === undefined ? undefined : view.requests[entry.request - 1];
  return (
    <li id={`seq-${entry.seq}`} class={`entry kind-${entry.kind}${selected ? " selected" : ""}`} data-seq={entry.seq}>
      <a class="seq" href={`#seq=${entry.seq}`}>
        {entry.seq}
      </a>
      <span class="label">{entry.label}</span>
      <details open={selected && request === undefined}>
        <summary>{entry.type}</summary>
        <pre>{entry.detail}</pre>
      </details>
      {request === undefined ? null : <RequestCard request={request} live={live ? { sessionId: view.session.id } : undefined} />}
      {live && entry.type === "turn/start" && view.composer !== undefined ? <WhatIfPanel sessionId={view.session.id} at={entry.seq} model={view.composer.model} /> : null}
    </li>
  );
}

/** One session: summary, cache breaks, the timeline with every request, and (live) the composer. */
export function SessionPage({ load, live }: { load: () => Promise<SessionView>; live: boolean }) {
  const [view, setView] = useState<SessionView | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [selected, setSelected] = useState(seqOfHash());
  const refresh = () => load().then(setView, (cause: Error) => setError(cause.message));
  useEffect(() => {
    void refresh();
    const onHash = () => setSelected(seqOfHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    if (selected !== undefined) document.getElementById(`seq-${selected}`)?.scrollIntoView({ block: "start" });
  }, [selected, view]);
  if (error !== undefined) return <p class="error">{error}</p>;
  if (view === undefined) return <p>Loading…</p>;
  const { session } = view;
  const breaks = view.requests.filter((request) => request.break !== undefined);
  const turns = new Map<number, TimelineEntry[]>();
  let currentTurn = -1;
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
            {breaks.map((request) => (
              <a key={request.number} href={`#seq=${request.dispatchSeq}`} class="break-link">
                request {request.number}
              </a>
            ))}
          </>
        )}
      </div>
      {[...turns].map(([turn, entries]) => (
        <section key={turn} class="turn">
          <h2>{turn < 0 ? "before the first turn" : `turn ${turn}`}</h2>
          <ol class="timeline">
            {entries.map((entry) => (
              <Entry key={entry.seq} entry={entry} view={view} selected={entry.seq === selected} live={live} />
            ))}
          </ol>
        </section>
      ))}
      {live && view.composer !== undefined ? <Composer sessionId={session.id} composer={view.composer} onDone={() => void refresh()} /> : null}
    </div>
  );
}
