import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { ComposerView } from "../view-types.js";
import { continueSession } from "./api.js";

/**
 * Keeps scrolling (links to an event, `scrollIntoView`) from placing anything under the composer,
 * which stays at the bottom of the window: the page's scroll padding follows its height.
 */
function keepClearOf(element: HTMLElement | null): (() => void) | undefined {
  if (element === null) return undefined;
  const root = document.documentElement;
  const clear = () => {
    root.style.scrollPaddingBottom = `${element.offsetHeight + 16}px`;
  };
  // Before the page scrolls to a linked event (its effect runs after this one), then on every resize.
  clear();
  const observer = new ResizeObserver(clear);
  observer.observe(element);
  return () => {
    observer.disconnect();
    root.style.scrollPaddingBottom = "";
  };
}

/**
 * Sends a new turn. The model picker starts from the selection restored from the log, which leaves
 * adapter-held values (reasoning effort, max tokens) out; only a field the user changes is sent, so an
 * unchanged effective config continues without a header change.
 */
export function Composer({ sessionId, composer, onDone }: { sessionId: string; composer: ComposerView; onDone: () => void }) {
  const [prompt, setPrompt] = useState("");
  const [model, setModel] = useState(composer.model);
  const [answer, setAnswer] = useState("");
  const [status, setStatus] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => keepClearOf(form.current), []);
  const send = async (event: Event) => {
    event.preventDefault();
    if (prompt.trim() === "" || busy) return;
    setBusy(true);
    setAnswer("");
    setStatus("sending…");
    try {
      await continueSession(sessionId, { prompt, ...(model === composer.model ? {} : { model }) }, (line) => {
        if (line.type === "text") setAnswer((text) => text + line.text);
        else if (line.type === "tool") {
          setStatus(`running ${line.name}…`);
          setAnswer((text) => (text === "" || text.endsWith("\n") ? text : `${text}\n`));
        }
        else if (line.type === "done") setStatus(`turn ${line.turn} ${line.reason}`);
        else setStatus(`failed: ${line.message}`);
      });
      setPrompt("");
      onDone();
    } catch (error) {
      setStatus(`failed: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  const explicit = Object.entries(composer.explicit);
  return (
    <form class="composer" ref={form} onSubmit={send}>
      <div class="picker">
        <label>
          provider <input name="provider" value={composer.provider} readOnly />
        </label>
        <label>
          model <input name="model" value={model} onInput={(event) => setModel((event.target as HTMLInputElement).value)} />
        </label>
        {explicit.length === 0 ? null : <span class="explicit">also chosen: {explicit.map(([key, value]) => `${key}=${JSON.stringify(value)}`).join(", ")}</span>}
      </div>
      <textarea name="prompt" placeholder="Continue the session…" value={prompt} onInput={(event) => setPrompt((event.target as HTMLTextAreaElement).value)} />
      <button type="submit" disabled={busy}>
        Send
      </button>
      {status === undefined ? null : <div class="status">{status}</div>}
      {answer === "" ? null : <pre class="answer">{answer}</pre>}
    </form>
  );
}
