import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { functionCallArgs } from "./raw-args.js";

describe("functionCallArgs", () => {
  it("keeps each call's args as written, integer-like keys and spacing included, in document order", () => {
    const text = '{"candidates": [{"content": {"parts": [{"text": "a \\"functionCall\\": {\\"args\\": {}}"}, {"functionCall": {"name": "f", "args": {"b": 1, "2": [1, {"x": "}"}], "1": null}}, "thoughtSignature": "s"}, {"functionCall": {"id": "c2", "args": {}, "name": "g"}}], "role": "model"}}]}';
    expect(functionCallArgs(text)).toEqual(['{"b": 1, "2": [1, {"x": "}"}], "1": null}', "{}"]);
    expect(JSON.stringify(JSON.parse(text).candidates[0].content.parts[1].functionCall.args)).toBe('{"1":null,"2":[1,{"x":"}"}],"b":1}');
  });

  it("ignores args that are not a function call's, and a call without args", () => {
    expect(functionCallArgs('{"args": {"a": 1}, "functionCall": {"name": "f"}, "x": {"functionCall": [{"args": {}}]}}')).toEqual([]);
    // An array element that follows a key's value is no value of that key.
    expect(functionCallArgs('{"functionCall": {"args": [{"a": 1}], "x": {}}, "y": [{"functionCall": {"args": {"b": 2}}}]}')).toEqual(['{"b": 2}']);
    expect(functionCallArgs('{"functionCall":{"name":"args","x":{"args":{}}},"z":"functionCall"}')).toEqual([]);
  });

  it("reads keys across whitespace and escaped quotes", () => {
    expect(functionCallArgs('{ "functionCall" :\n {\t"args"\r\n: {"q\\"": "\\"}"} } }')).toEqual(['{"q\\"": "\\"}"}']);
  });

  it("finds, for any args object, exactly the text that was written", () => {
    fc.assert(
      fc.property(fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 3 }), fc.boolean(), (calls, spaced) => {
        const args = calls.map((value) => JSON.stringify(value, null, spaced ? 1 : 0));
        const text = `{"candidates":[{"content":{"parts":[${args.map((raw, i) => `{"functionCall":{"name":"f${i}","args":${raw}}}`).join(",")}]}}]}`;
        expect(functionCallArgs(text)).toEqual(args);
      }),
    );
  });
});
