import { useState } from "preact/hooks";
import type { WhatIfCells, WhatIfView } from "../view-types.js";
import { whatIf } from "./api.js";
import { linkSeqs } from "./format.js";

function usd(value: number | null): string {
  if (value === null) return "no price";
  return value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(6)}`;
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

function Cells({ cells }: { cells: WhatIfCells | null }) {
  if (cells === null) return <td colSpan={4}>not sent</td>;
  return (
    <>
      <td>{cells.promptTokens}</td>
      <td>{cells.cacheReadTokens}</td>
      <td>{cells.inputTokens}</td>
      <td>{usd(cells.costUsd)}</td>
    </>
  );
}

/** The comparison: per request, recorded beside what if, with the breaks and their causes, and the totals. */
function Comparison({ view }: { view: WhatIfView }) {
  const { delta } = view;
  return (
    <div class="what-if-result">
      <p class="what-if-delta">
        What if {view.change} from seq {view.fork} on: cache reads {signed(delta.cacheReadTokens)} tokens, uncached input {signed(delta.inputTokens)}, cost {delta.costUsd >= 0 ? "+" : "-"}
        {usd(Math.abs(delta.costUsd))}.
      </p>
      <table class="what-if-table">
        <thead>
          <tr>
            <th rowSpan={2}>step</th>
            <th colSpan={4} title="The recorded requests under the same modelled cache as the what-if, not the usage the provider reported (the request cards show that)">
              recorded, modelled cache
            </th>
            <th colSpan={4}>what if</th>
            <th rowSpan={2}>note</th>
          </tr>
          <tr>
            <th>prompt</th>
            <th>read</th>
            <th>uncached</th>
            <th>cost</th>
            <th>prompt</th>
            <th>read</th>
            <th>uncached</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {view.rows.map((row) => (
            <tr key={`${row.turn}.${row.step}`} data-step={`${row.turn}.${row.step}`}>
              <td>
                {row.turn}.{row.step}
              </td>
              <Cells cells={row.recorded} />
              <Cells cells={row.whatIf} />
              <td class="note">{linkSeqs(row.note)}</td>
            </tr>
          ))}
          <tr class="total">
            <td>total</td>
            <Cells cells={view.totals.recorded} />
            <Cells cells={view.totals.whatIf} />
            <td />
          </tr>
        </tbody>
      </table>
      {view.honesty.map((line) => (
        <p class="what-if-honesty" key={line}>
          {line}
        </p>
      ))}
    </div>
  );
}

/** "What if…" on a turn: a new system prompt or another model from there on, compared request by request with the recording. */
export function WhatIfPanel({ sessionId, at, model }: { sessionId: string; at: number; model: string }) {
  const [open, setOpen] = useState(false);
  const [kind, setKind] = useState<"system" | "model">("system");
  const [value, setValue] = useState("");
  const [result, setResult] = useState<WhatIfView | undefined>();
  const [status, setStatus] = useState<string | undefined>();
  if (!open) {
    return (
      <button type="button" class="what-if-open" onClick={() => setOpen(true)}>
        what if…
      </button>
    );
  }
  const run = async (event: Event) => {
    event.preventDefault();
    setStatus("replaying…");
    setResult(undefined);
    try {
      setResult(await whatIf(sessionId, kind === "system" ? { at, system: value } : { at, model: value || model }));
      setStatus(undefined);
    } catch (error) {
      setStatus(`failed: ${(error as Error).message}`);
    }
  };
  return (
    <form class="what-if" onSubmit={run}>
      <select name="kind" value={kind} onChange={(event) => setKind((event.target as HTMLSelectElement).value as "system" | "model")}>
        <option value="system">system prompt</option>
        <option value="model">model</option>
      </select>
      {kind === "system" ? (
        <textarea name="value" placeholder="The system prompt from this turn on" value={value} onInput={(event) => setValue((event.target as HTMLTextAreaElement).value)} />
      ) : (
        <input name="value" placeholder={model} value={value} onInput={(event) => setValue((event.target as HTMLInputElement).value)} />
      )}
      <button type="submit">Compare</button>
      {status === undefined ? null : <div class="status">{status}</div>}
      {result === undefined ? null : <Comparison view={result} />}
    </form>
  );
}
