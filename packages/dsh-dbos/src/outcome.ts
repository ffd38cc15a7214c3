import { turnEndEvent, turnStartEvent } from "dsh-agent";
import type { EventLog } from "dsh-log";
import { assistantMessageEvent } from "dsh-surface";

/** The text of the last answer of turn `turn` in the log with text in it ("" when none had any). */
export function turnText(log: EventLog, turn: number): string {
  let start = log.length;
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnStartEvent.is(event) && event.data.turn === turn) {
      start = seq;
      break;
    }
  }
  let text = "";
  for (let seq = start; seq < log.length; seq++) {
    const event = log.get(seq)!;
    if (turnStartEvent.is(event) && event.data.turn !== turn) break;
    if (!assistantMessageEvent.is(event)) continue;
    const answer = event.data.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    if (answer !== "") text = answer;
  }
  return text;
}

/** Why turn `turn` failed, as its `turn/end` logged it (a stable code and a message), when it did. */
export function turnError(log: EventLog, turn: number): { readonly code: string; readonly message: string } | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) {
    const event = log.get(seq)!;
    if (turnEndEvent.is(event) && event.data.turn === turn) return event.data.error === undefined ? undefined : { code: event.data.error.code, message: event.data.error.message };
  }
  return undefined;
}
