import { useState } from "preact/hooks";
import type { RequestWire } from "../view-types.js";
import { loadWire } from "./api.js";

/** A wire body: all of it, or its start with a note saying where the whole is. */
function WireText({ wire }: { wire: RequestWire }) {
  const shown = new TextEncoder().encode(wire.wire).length;
  return (
    <>
      {wire.wireBytes > shown ? (
        <p class="note">
          The first {wire.wire.length} characters; <code>dsh requests --wire</code> prints the whole body.
        </p>
      ) : null}
      <pre>{wire.wire}</pre>
    </>
  );
}

/** The wire body a page carries. */
export function InlineWire({ wire }: { wire: RequestWire }) {
  return (
    <details class="wire">
      <summary>wire body ({wire.wireBytes} bytes)</summary>
      <WireText wire={wire} />
    </details>
  );
}

/** The wire body of a live page's request, asked of the server the first time it is opened. */
export function WireOnDemand({ sessionId, number }: { sessionId: string; number: number }) {
  const [wire, setWire] = useState<RequestWire | undefined>();
  const [error, setError] = useState<string | undefined>();
  const onToggle = (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open || wire !== undefined) return;
    loadWire(sessionId, number).then(setWire, (cause: Error) => setError(cause.message));
  };
  return (
    <details class="wire" onToggle={onToggle}>
      <summary>wire body{wire === undefined ? "" : ` (${wire.wireBytes} bytes)`}</summary>
      {error !== undefined ? <p class="error">{error}</p> : wire === undefined ? <p>Loading…</p> : <WireText wire={wire} />}
    </details>
  );
}
