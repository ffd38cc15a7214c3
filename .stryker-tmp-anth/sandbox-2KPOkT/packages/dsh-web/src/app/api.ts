import type { ContinueLine, SessionListItem, SessionView } from "../view-types.js";

async function json<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: "application/json" } });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}

export const listSessions = () => json<SessionListItem[]>("/api/sessions");
export const loadSession = (id: string) => json<SessionView>(`/api/sessions/${encodeURIComponent(id)}`);

/** Sends a new turn and calls `onLine` for each line of the streamed answer. */
export async function continueSession(id: string, body: { prompt: string; model?: string }, onLine: (line: ContinueLine) => void): Promise<void> {
  const response = await fetch(`/api/sessions/${encodeURIComponent(id)}/turns`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok || response.body === null) {
    const text = await response.text();
    throw new Error((JSON.parse(text) as { error?: string }).error ?? `${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += value;
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== "") onLine(JSON.parse(line) as ContinueLine);
      newline = buffered.indexOf("\n");
    }
  }
}
