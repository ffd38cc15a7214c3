import { useEffect, useState } from "preact/hooks";
import type { SessionListItem } from "../view-types.js";
import { listSessions } from "./api.js";
import { percent, when } from "./format.js";

/** The sessions of the store, newest first. */
export function SessionsList() {
  const [sessions, setSessions] = useState<SessionListItem[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    listSessions().then(setSessions, (cause: Error) => setError(cause.message));
  }, []);
  if (error !== undefined) return <p class="error">{error}</p>;
  if (sessions === undefined) return <p>Loading…</p>;
  if (sessions.length === 0) return <p>No sessions in this store yet. Run <code>dsh run "…"</code> first.</p>;
  return (
    <table class="sessions">
      <thead>
        <tr>
          <th>session</th>
          <th>created</th>
          <th>models</th>
          <th>turns</th>
          <th>requests</th>
          <th title="cache-read tokens over the prompt tokens the provider reported, every request that reported usage included">cache-read share</th>
          <th>forked from</th>
        </tr>
      </thead>
      <tbody>
        {[...sessions]
          .sort((a, b) => b.createdAt - a.createdAt)
          .map((session) => (
            <tr key={session.id} data-session={session.id}>
              <td>
                <a href={`/sessions/${encodeURIComponent(session.id)}`}>{session.id}</a>
              </td>
              <td>{when(session.createdAt)}</td>
              <td class={session.problem === undefined ? undefined : "error"}>{session.problem ?? session.models.join(", ")}</td>
              <td class="number">{session.turns}</td>
              <td class="number">{session.requests}</td>
              <td class="number">{percent(session.cacheReadShare)}</td>
              <td>
                {session.parent === undefined ? "" : <a href={`/sessions/${encodeURIComponent(session.parent.id)}#seq=${session.parent.seedLength - 1}`}>{session.parent.id}</a>}
                {session.parent?.broken === undefined ? null : <span class="error"> (broken: {session.parent.broken})</span>}
              </td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
