import { LlmError } from "./errors.js";
import { canonicalJson, type JsonObject } from "./json.js";

/** Which body fields an adapter writes itself, for {@link addExtensionFields}. */
export interface OwnFields {
  /** Fields an extension may never set. */
  readonly own: ReadonlySet<string>;
  /** Own fields an extension may set when the adapter left them out of this body (e.g. `thinking`). */
  readonly fillable: ReadonlySet<string>;
}

/**
 * For adapters: adds a call's `extensions` to a wire body's `fields`, keys sorted at every depth so
 * the bytes never depend on insertion order. An extension that would replace a field the adapter
 * writes is `LLM_INVALID_REQUEST`. Keys are defined, not assigned: one named `__proto__` is a field.
 */
export function addExtensionFields(fields: Record<string, unknown>, extensions: JsonObject | undefined, owned: OwnFields): void {
  for (const [key, value] of Object.entries(canonicalJson(extensions ?? {}) as JsonObject)) {
    if (owned.own.has(key) && !(owned.fillable.has(key) && fields[key] === undefined)) {
      throw new LlmError("LLM_INVALID_REQUEST", `extension ${key} would override a field the adapter sets`);
    }
    Object.defineProperty(fields, key, { value, enumerable: true, writable: true, configurable: true });
  }
}
