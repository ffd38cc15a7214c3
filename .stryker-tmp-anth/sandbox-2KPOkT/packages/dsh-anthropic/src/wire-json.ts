import type { JsonValue } from "dsh-llm";

/** JSON text written into the body exactly as given: the raw argument JSON a model produced for a tool call. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A wire value: JSON, possibly holding verbatim {@link RawJson} text. */
export type WireValue = JsonValue | RawJson | readonly WireValue[] | { readonly [key: string]: WireValue };

/**
 * Compact JSON of a wire value, keys in insertion order, `RawJson` spliced in verbatim. Strings and
 * numbers are written by `JSON.stringify`, so the bytes are those of `JSON.stringify` wherever no raw
 * text occurs.
 */
export function writeWireJson(value: WireValue): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(writeWireJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const object = value as { readonly [key: string]: WireValue };
    return `{${Object.keys(object)
      .map((key) => `${JSON.stringify(key)}:${writeWireJson(object[key]!)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}
