import fc from "fast-check";
import { z } from "zod";
import { LogError } from "../errors.js";
import type { EventInput } from "../event.js";
import { EventRegistry, defineEvent, type AdmissionRule } from "../registry.js";

export const noteAdded = defineEvent(
  "note/added",
  z.strictObject({ text: z.string(), tags: z.array(z.string()).exactOptional(), meta: z.record(z.string(), z.json()).exactOptional() }),
);
export const turnOpened = defineEvent("turn/opened", z.strictObject({ turn: z.number().int() }));
export const turnClosed = defineEvent("turn/closed", z.strictObject({ turn: z.number().int() }));
/** A type whose version 1 its owner retired, alongside the wholly retired `note/legacy`. */
export const noteVersioned = defineEvent("note/versioned", z.strictObject({ version: z.number().int() }));

/** A rule in the spirit of the real ones: a turn can only close while it is open. */
export const turnPairing: AdmissionRule<number | undefined> = {
  name: "test/turn-pairing",
  initial: () => undefined,
  admit(open, event) {
    if (turnOpened.is(event)) {
      if (open !== undefined) throw new LogError("LOG_RULE_VIOLATION", `turn ${open} is still open`);
      return event.data.turn;
    }
    if (turnClosed.is(event)) {
      if (open !== event.data.turn) throw new LogError("LOG_RULE_VIOLATION", `turn ${event.data.turn} is not open`);
      return undefined;
    }
    return open;
  },
};

/** A rule whose initial state matters: it lets `limit` notes through and refuses the next one. */
export function noteQuota(limit: number): AdmissionRule<{ readonly left: number }> {
  return {
    name: "test/note-quota",
    initial: () => ({ left: limit }),
    admit(state, event) {
      if (!noteAdded.is(event)) return state;
      if (state.left === 0) throw new LogError("LOG_RULE_VIOLATION", "no notes left");
      return { left: state.left - 1 };
    },
  };
}

export function testRegistry(): EventRegistry {
  return new EventRegistry()
    .define(noteAdded, turnOpened, turnClosed, noteVersioned)
    .ignore("ui/")
    .rule(turnPairing)
    .retire("note/legacy", "a retired type: write note/added")
    .retire("note/versioned", "version 1 is retired: write version 2", (data) => (data as { version?: unknown }).version === 1);
}

/** JSON values exactly as JSON can carry them (fast-check may produce -0, which JSON turns into 0). */
const exactJson = fc.jsonValue().map((value) => JSON.parse(JSON.stringify(value)) as z.core.util.JSONType);

/** Random sequences of valid inputs for {@link testRegistry}. */
export const validInputs: fc.Arbitrary<EventInput[]> = fc
  .array(
    fc.oneof(
      fc.record({ text: fc.string({ unit: "binary" }), tags: fc.array(fc.string()) }, { requiredKeys: ["text"] }),
      fc.record({ text: fc.string(), meta: fc.dictionary(fc.string(), exactJson) }),
      fc.constant("turn" as const),
      exactJson.map((payload) => ({ ui: payload })),
    ),
    { maxLength: 30 },
  )
  .map((items) => {
    const inputs: EventInput[] = [];
    let turn = 0;
    for (const item of items) {
      if (item === "turn") {
        inputs.push(turnOpened.input({ turn }), turnClosed.input({ turn }));
        turn++;
      } else if ("ui" in item) {
        inputs.push({ type: "ui/panel", data: item.ui, time: 5 });
      } else {
        inputs.push(noteAdded.input(item, 1_700_000_000_000 + inputs.length));
      }
    }
    return inputs;
  });
