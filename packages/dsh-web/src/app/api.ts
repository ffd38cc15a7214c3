import type { ContinueLine, SessionListItem, SessionView, WhatIfInput, WhatIfView } from "../view-types.js";

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

/** Asks for the recorded session beside the same session with one change from `at` on. */
export async function whatIf(id: string, input: WhatIfInput): Promise<WhatIfView> {
  const response = await fetch(`/api/sessions/${encodeURIComponent(id)}/what-if`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as WhatIfView & { error?: string };
  if (!response.ok) throw new Error(body.error ?? `${response.status} ${response.statusText}`);
  return body;
}
