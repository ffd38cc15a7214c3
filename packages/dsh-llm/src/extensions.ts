import { LlmError } from "./errors.js";
import { canonicalJson, type JsonObject } from "./json.js";

/** Which body fields an adapter writes itself, and which it never lets through, for {@link addExtensionFields}. */
export interface OwnFields {
  /** Fields an extension may never set. */
  readonly own: ReadonlySet<string>;
  /** Own fields an extension may set when the adapter left them out of this body (e.g. `thinking`). */
  readonly fillable: ReadonlySet<string>;
  /**
   * Fields that make the model read content the provider holds or changes and no log holds (a stored
   * prompt, a cached content, a container, a conversation, a server-side edit of the input), each
   * with what that content is: a request carrying one could not be rebuilt from its log.
   */
  readonly providerHeld: ReadonlyMap<string, string>;
}

/**
 * For adapters: adds a call's `extensions` to a wire body's `fields`, keys sorted at every depth so
 * the bytes never depend on insertion order. An extension that would replace a field the adapter
 * writes, or that makes the model read what the provider holds ({@link OwnFields.providerHeld}), is
 * `LLM_INVALID_REQUEST`. Keys are defined, not assigned: one named `__proto__` is a field.
 */
export function addExtensionFields(fields: Record<string, unknown>, extensions: JsonObject | undefined, owned: OwnFields): void {
  for (const [key, value] of Object.entries(canonicalJson(extensions ?? {}) as JsonObject)) {
    const held = owned.providerHeld.get(key);
    if (held !== undefined) {
      throw new LlmError("LLM_INVALID_REQUEST", `extension ${key} makes the model read ${held}, which no log holds: dsh sends each request whole, so that every request can be rebuilt from its log`);
    }
    if (owned.own.has(key) && !(owned.fillable.has(key) && fields[key] === undefined)) {
      throw new LlmError("LLM_INVALID_REQUEST", `extension ${key} would override a field the adapter sets`);
    }
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  }
}
