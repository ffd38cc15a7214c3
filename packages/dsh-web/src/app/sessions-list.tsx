import { useEffect, useState } from "preact/hooks";
import type { SessionListItem } from "../view-types.js";
import { listSessions } from "./api.js";
import { percent, when } from "./format.js";

/** Whether a session's row shows `query`: its id, file, first prompt, models or parent contain it (any case). */
function matches(session: SessionListItem, query: string): boolean {
  const text = [session.id, session.file, session.prompt, ...session.models, session.parent?.id, session.subagentOf?.id].join("\n").toLowerCase();
  return query.trim().toLowerCase().split(/\s+/).every((word) => text.includes(word));
}

/** The sessions newest first, each subagent's session kept right under its parent (the backend lists each tree together, oldest first). */
function newestFirst(sessions: readonly SessionListItem[]): SessionListItem[] {
  const trees: SessionListItem[][] = [];
  for (const session of sessions) {
    if ((session.depth ?? 0) === 0 || trees.length === 0) trees.push([session]);
    else trees.at(-1)!.push(session);
  }
  return trees.reverse().flat();
}

/** The parent cell: the session a fork was seeded from (and why that lineage broke), or the one whose subagent call ran this session. */
function ParentCell({ session }: { session: SessionListItem }) {
  if (session.subagentOf !== undefined) {
    return (
      <>
        subagent of <a href={`/sessions/${encodeURIComponent(session.subagentOf.id)}`}>{session.subagentOf.id}</a>
      </>
    );
  }
  if (session.parent === undefined) return null;
  return (
    <>
      <a href={`/sessions/${encodeURIComponent(session.parent.id)}#seq=${session.parent.seedLength - 1}`}>{session.parent.id}</a>
      {session.parent.broken === undefined ? null : <span class="error"> (broken: {session.parent.broken})</span>}
    </>
  );
}

/** The sessions of the store, newest first (subagents' under their parents), filtered by what the user types. */
export function SessionsList() {
  const [sessions, setSessions] = useState<SessionListItem[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [query, setQuery] = useState("");
  useEffect(() => {
    listSessions().then(setSessions, (cause: Error) => setError(cause.message));
  }, []);
  if (error !== undefined) return <p class="error">{error}</p>;
  if (sessions === undefined) return <p>Loading…</p>;
  if (sessions.length === 0) return <p>No sessions in this store yet. Run <code>dsh run "…"</code> first.</p>;
  const shown = newestFirst(sessions).filter((session) => matches(session, query));
  return (
    <>
      <input class="filter" type="search" placeholder="Filter by prompt, file, model or id" value={query} onInput={(event) => setQuery((event.target as HTMLInputElement).value)} />
      <p class="count">{shown.length === sessions.length ? `${sessions.length} session(s)` : `${shown.length} of ${sessions.length} session(s)`}</p>
      <table class="sessions">
        <thead>
          <tr>
            <th>session</th>
            <th>first prompt</th>
            <th>created</th>
            <th>models</th>
            <th>turns</th>
            <th>requests</th>
            <th title="cache-read tokens over the prompt tokens the provider reported, every request that reported usage included">cache-read share</th>
            <th>parent</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((session) => (
            <tr key={session.id} data-session={session.id}>
              <td style={session.depth === undefined || session.depth === 0 ? undefined : { paddingLeft: `${session.depth * 1.5}em` }}>
                <a href={`/sessions/${encodeURIComponent(session.id)}`}>{session.id}</a>
                {session.file === undefined || session.file === `${session.id}.jsonl` ? null : <div class="file">{session.file}</div>}
              </td>
              <td class="prompt">{session.prompt ?? ""}</td>
              <td>{when(session.createdAt)}</td>
              <td class={session.problem === undefined ? undefined : "error"}>{session.problem ?? session.models.join(", ")}</td>
              <td class="number">{session.turns}</td>
              <td class="number">{session.requests}</td>
              <td class="number">{percent(session.cacheReadShare)}</td>
              <td class="parent">
                <ParentCell session={session} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
