import type { ContinueLine, PageChoice, RequestWire, SessionListItem, SessionView, WhatIfInput, WhatIfView } from "../view-types.js";

/** Where the app keeps this launch's secret: local storage is this origin's alone (its port included), unlike a cookie. */
const TOKEN_KEY = "dsh-token";

/** Takes the secret from the link `dsh web` printed (`?token=`) into this origin's storage, and the secret out of the address bar. */
export function keepLaunchToken(): void {
  const url = new URL(location.href);
  const token = url.searchParams.get("token");
  if (token === null) return;
  localStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete("token");
  history.replaceState(history.state, "", `${url.pathname}${url.search}${url.hash}`);
}

/** The headers every API call carries: this launch's secret, and `extra`. */
function withToken(extra: Record<string, string> = {}): Record<string, string> {
  return { ...extra, "x-dsh-token": localStorage.getItem(TOKEN_KEY) ?? "" };
}

/** The JSON `path` answers (to a GET, or to a POST of `body` when given), or its error message as an `Error`. */
async function json<T>(path: string, body?: string): Promise<T> {
  const response = await fetch(
    path,
    body === undefined ? { headers: withToken({ accept: "application/json" }) } : { method: "POST", headers: withToken({ "content-type": "application/json", accept: "application/json" }), body },
  );
  const answer = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new Error(answer.error ?? `${response.status} ${response.statusText}`);
  return answer;
}

export const listSessions = () => json<SessionListItem[]>("/api/sessions");
export const loadSession = (id: string, at?: PageChoice) =>
  json<SessionView>(`/api/sessions/${encodeURIComponent(id)}${at === undefined ? "" : "page" in at ? `?page=${at.page}` : `?seq=${at.seq}`}`);
export const loadWire = (id: string, request: number) => json<RequestWire>(`/api/sessions/${encodeURIComponent(id)}/requests/${request}/wire`);

/** Sends a new turn and calls `onLine` for each line of the streamed answer. */
export async function continueSession(id: string, body: { prompt: string; model?: string }, onLine: (line: ContinueLine) => void): Promise<void> {
  const response = await fetch(`/api/sessions/${encodeURIComponent(id)}/turns`, {
    method: "POST",
    headers: withToken({ "content-type": "application/json" }),
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
export const whatIf = (id: string, input: WhatIfInput) => json<WhatIfView>(`/api/sessions/${encodeURIComponent(id)}/what-if`, JSON.stringify(input));

/** An image the server serves (with the secret) as a `data:` URL an `<img>` can show; a `data:` URL as it is. */
export async function imageDataUrl(src: string): Promise<string> {
  if (src.startsWith("data:")) return src;
  const response = await fetch(src, { headers: withToken() });
  if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
  const blob = await response.blob();
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("the image could not be read"));
    reader.readAsDataURL(blob);
  });
}
