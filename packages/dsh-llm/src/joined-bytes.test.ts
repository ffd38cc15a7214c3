import { describe, expect, it } from "vitest";
import { JoinedBytes } from "./joined-bytes.js";

const bytes = (text: string) => Buffer.from(text);

/** What `write` puts between two guard bytes, as text, checking that it writes exactly `length` bytes. */
function written(joined: JoinedBytes, given: readonly string[]): string {
  const givenBytes = given.map(bytes);
  const target = Buffer.alloc(joined.length(givenBytes) + 2, "_");
  const end = joined.write(target, 1, givenBytes);
  expect(end).toBe(target.length - 1);
  expect(target.toString("utf8", end)).toBe("_");
  return target.toString("utf8", 1, end);
}

describe("JoinedBytes", () => {
  const [a, b, c, d] = [{}, {}, {}, {}];

  it("joins held messages with commas and leaves open places for bytes given at each write", () => {
    const joined = new JoinedBytes();
    expect(written(joined, [])).toBe("");
    joined.push(a, bytes("A"));
    joined.push(b, undefined);
    joined.push(c, bytes("CC"));
    joined.push(d, undefined);
    expect(written(joined, ["b1", "d1"])).toBe("A,b1,CC,d1");
    expect(joined.openPlaces(4)).toEqual([1, 3]);
    expect(joined.openPlaces(3)).toEqual([1]);
    expect(joined.openPlaces(1)).toEqual([]);
  });

  it("leaves out empty bytes, held or given, with their commas", () => {
    const joined = new JoinedBytes();
    joined.push(a, undefined);
    joined.push(b, bytes(""));
    joined.push(c, bytes("C"));
    joined.push(d, undefined);
    expect(written(joined, ["", ""])).toBe("C");
    expect(written(joined, ["A", ""])).toBe("A,C");
    expect(written(joined, ["", "D"])).toBe("C,D");
    expect(written(joined, ["A", "D"])).toBe("A,C,D");
    joined.keep(2);
    expect(written(joined, [""])).toBe("");
    expect(written(joined, ["A"])).toBe("A");
  });

  it("joins with the separator it was made with, nothing or several bytes, and leaves it out where the bytes are empty", () => {
    for (const separator of ["", "; "]) {
      const joined = new JoinedBytes(separator);
      joined.push(a, bytes("A"));
      joined.push(b, undefined);
      joined.push(c, bytes(""));
      joined.push(d, bytes("DD"));
      expect(written(joined, ["b1"])).toBe(["A", "b1", "DD"].join(separator));
      expect(written(joined, [""])).toBe(["A", "DD"].join(separator));
      joined.keep(2);
      expect(written(joined, ["b1"])).toBe(["A", "b1"].join(separator));
      joined.keep(0);
      joined.push(b, undefined);
      joined.push(c, bytes("C"));
      expect(written(joined, ["B"])).toBe(["B", "C"].join(separator));
      expect(written(joined, [""])).toBe("C");
    }
  });

  it("counts the messages a list shares with the held ones, by identity and in order", () => {
    const joined = new JoinedBytes();
    joined.push(a, bytes("A"));
    joined.push(b, bytes("B"));
    expect(joined.sharedWith([a, b, c])).toBe(2);
    expect(joined.sharedWith([a])).toBe(1);
    expect(joined.sharedWith([a, c, b])).toBe(1);
    expect(joined.sharedWith([{ ...a }, b])).toBe(0);
    expect(joined.sharedWith([])).toBe(0);
  });

  it("forgets what follows the messages it keeps, open places included, and goes on from there", () => {
    const joined = new JoinedBytes();
    joined.push(a, bytes("A"));
    joined.push(b, undefined);
    joined.push(c, bytes("C"));
    joined.keep(1);
    expect(joined.openPlaces(9)).toEqual([]);
    expect(joined.sharedWith([a, b])).toBe(1);
    joined.push(d, bytes("D"));
    expect(written(joined, [])).toBe("A,D");
    joined.keep(0);
    expect(written(joined, [])).toBe("");
    joined.push(c, bytes("C"));
    expect(written(joined, [])).toBe("C");
  });

  it("keeps every byte when it grows past what it holds", () => {
    const joined = new JoinedBytes();
    const parts = Array.from({ length: 60 }, (_, i) => String(i).repeat(100 + i));
    for (const part of parts) joined.push({}, bytes(part));
    expect(written(joined, [])).toBe(parts.join(","));
  });
});
