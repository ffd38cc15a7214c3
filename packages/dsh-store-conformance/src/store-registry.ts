import { EventRegistry, defineEvent, type SessionStore } from "dsh-log";
import { z } from "zod";

/** The one event type the store conformance suite writes. */
export const storeNote = defineEvent("note/added", z.strictObject({ text: z.string(), meta: z.record(z.string(), z.json()).exactOptional() }));

/** A registry with just {@link storeNote}. */
export function storeRegistry(): EventRegistry {
  return new EventRegistry().define(storeNote);
}

/** The texts of a stored session's notes, in order, as a reader loads them. */
export async function storedTexts(store: SessionStore, sessionId: string): Promise<string[]> {
  return (await store.read(sessionId, storeRegistry())).log.slice().map((event) => (event.data as { text: string }).text);
}
