import { EventRegistry, defineEvent } from "dsh-log";
import { z } from "zod";

/** The one event type the store conformance suite writes. */
export const storeNote = defineEvent("note/added", z.strictObject({ text: z.string(), meta: z.record(z.string(), z.json()).exactOptional() }));

/** A registry with just {@link storeNote}. */
export function storeRegistry(): EventRegistry {
  return new EventRegistry().define(storeNote);
}
