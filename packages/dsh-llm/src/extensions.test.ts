import { describe, expect, it } from "vitest";
import { addExtensionFields } from "./extensions.js";
import type { JsonObject } from "./json.js";

const owned = { own: new Set(["model", "thinking"]), fillable: new Set(["thinking"]), providerHeld: new Map([["prompt", "a prompt template the provider stores"]]) };

describe("addExtensionFields", () => {
  it("adds extensions with keys sorted at every depth, after the fields already there", () => {
    const fields: Record<string, unknown> = { temperature: 1 };
    addExtensionFields(fields, { z: { b: 1, a: 2 }, a: [{ d: 1, c: 2 }] }, owned);
    expect(JSON.stringify(fields)).toBe('{"temperature":1,"a":[{"c":2,"d":1}],"z":{"a":2,"b":1}}');
  });

  it("refuses an extension over an own field, and lets a fillable one in only when the adapter left it out", () => {
    expect(() => addExtensionFields({}, { model: "x" }, owned)).toThrowError(
      expect.objectContaining({ code: "LLM_INVALID_REQUEST", retryable: false, message: "extension model would override a field the adapter sets" }),
    );
    const filled: Record<string, unknown> = {};
    addExtensionFields(filled, { thinking: { type: "enabled" } }, owned);
    expect(filled).toEqual({ thinking: { type: "enabled" } });
    expect(() => addExtensionFields({ thinking: { type: "adaptive" } }, { thinking: {} }, owned)).toThrowError("extension thinking would override a field the adapter sets");
  });

  it("refuses an extension that makes the model read what the provider holds, naming what that is", () => {
    const fields: Record<string, unknown> = { temperature: 1 };
    expect(() => addExtensionFields(fields, { a: 1, prompt: { id: "pmpt_1" } }, owned)).toThrowError(
      expect.objectContaining({
        code: "LLM_INVALID_REQUEST",
        retryable: false,
        message: "extension prompt makes the model read a prompt template the provider stores, which no log holds: dsh sends each request whole, so that every request can be rebuilt from its log",
      }),
    );
  });

  it("keeps a key named __proto__ as a field, and adds nothing without extensions", () => {
    const fields: Record<string, unknown> = {};
    addExtensionFields(fields, JSON.parse('{"__proto__":{"x":1}}') as JsonObject, owned);
    expect(JSON.stringify(fields)).toBe('{"__proto__":{"x":1}}');
    const empty: Record<string, unknown> = {};
    addExtensionFields(empty, undefined, owned);
    expect(empty).toEqual({});
  });
});
