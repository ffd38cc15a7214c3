import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { functionCallArgs } from "./raw-args.js";

/** A chunk whose first candidate holds `parts` (raw JSON texts), and `more` after it. */
const chunk = (parts: readonly string[], more = "") => `{"candidates":[{"content":{"parts":[${parts.join(",")}],"role":"model"}}${more}]}`;

describe("functionCallArgs", () => {
  it("keeps each call's args as written, integer-like keys and spacing included, by part index", () => {
    const text = '{"candidates": [{"content": {"parts": [{"text": "a \\"functionCall\\": {\\"args\\": {}}"}, {"functionCall": {"name": "f", "args": {"b": 1, "2": [1, {"x": "}"}], "1": null}}, "thoughtSignature": "s"}, {"functionCall": {"id": "c2", "args": {}, "name": "g"}}], "role": "model"}}]}';
    expect(functionCallArgs(text)).toEqual(new Map([[1, '{"b": 1, "2": [1, {"x": "}"}], "1": null}'], [2, "{}"]]));
    expect(JSON.stringify(JSON.parse(text).candidates[0].content.parts[1].functionCall.args)).toBe('{"1":null,"2":[1,{"x":"}"}],"b":1}');
  });

  it("finds only the args of the first candidate's parts: none elsewhere in the chunk, nor in other candidates", () => {
    expect(functionCallArgs('{"args": {"a": 1}, "functionCall": {"name": "f"}, "x": {"functionCall": [{"args": {}}]}}')).toEqual(new Map());
    expect(functionCallArgs('{"functionCall": {"args": {"b": 2}}, "parts": [{"functionCall": {"args": {"c": 3}}}]}')).toEqual(new Map());
    expect(functionCallArgs('{"functionCall":{"name":"args","x":{"args":{}}},"z":"functionCall"}')).toEqual(new Map());
    const second = ',{"content":{"parts":[{"functionCall":{"name":"g","args":{"second":true}}}]}}';
    expect(functionCallArgs(chunk(['{"text":"no call"}'], second))).toEqual(new Map());
    expect(functionCallArgs(chunk(['{"functionCall":{"name":"f","args":{"first":1}}}'], second))).toEqual(new Map([[0, '{"first":1}']]));
    // A first candidate with its content somewhere else than its own "content" holds no call.
    expect(functionCallArgs('{"candidates":[{"x":{"content":{"parts":[{"functionCall":{"args":{}}}]}}}]}')).toEqual(new Map());
  });

  it("takes arguments that themselves hold a call's shape whole, not the call inside them", () => {
    const inner = '{"functionCall": {"name": "inner", "args": {"x": 1}}}';
    const args = `{"nested": ${inner}, "list": [${inner}], "functionCall": {"args": {"y": 2}}}`;
    expect(functionCallArgs(chunk([`{"functionCall":{"name":"f","args":${args}}}`]))).toEqual(new Map([[0, args]]));
  });

  it("reads keys across whitespace and escaped quotes", () => {
    const text = `{ "candidates" : [ { "content" :{"parts":[ { "functionCall" :\n {\t"args"\r\n: {"q\\"": "\\"}"} } }]}}]}`;
    expect(functionCallArgs(text)).toEqual(new Map([[0, '{"q\\"": "\\"}"}']]));
  });

  it("finds, for any args object (one holding a call's shape too) among other parts and candidates, exactly the text that was written", () => {
    const callShaped = fc.jsonValue().map((value) => ({ functionCall: { name: "inner", args: { v: value } } }));
    const argsObject = fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), callShaped));
    const part = fc.oneof(argsObject.map((args) => ({ args })), fc.string().map((text) => ({ text })));
    fc.assert(
      fc.property(fc.array(part, { maxLength: 4 }), fc.array(argsObject, { maxLength: 2 }), fc.boolean(), (parts, others, spaced) => {
        const space = spaced ? 1 : 0;
        const written = parts.map((entry) => ("args" in entry ? JSON.stringify(entry.args, null, space) : undefined));
        const texts = parts.map((entry, i) => ("args" in entry ? `{"functionCall":{"name":"f${i}","args":${written[i]!}}}` : JSON.stringify(entry)));
        const more = others.map((args) => `,${JSON.stringify({ content: { parts: [{ functionCall: { name: "other", args } }] } }, null, space)}`).join("");
        const expected = new Map(written.flatMap((raw, i) => (raw === undefined ? [] : [[i, raw] as const])));
        expect(functionCallArgs(chunk(texts, more))).toEqual(expected);
      }),
    );
  });
});
