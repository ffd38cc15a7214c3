import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { clipText, loneSurrogateIndex, truncateText } from "./text.js";

describe("truncateText", () => {
  it("keeps text that fits, whole", () => {
    expect(truncateText("abc", 3)).toBe("abc");
    expect(truncateText("", 0)).toBe("");
  });

  it("never cuts a surrogate pair, an emoji sequence or a letter from its accent", () => {
    expect(truncateText("ab😀", 3)).toBe("ab");
    expect(truncateText("ab😀c", 4)).toBe("ab😀");
    // A family emoji is one grapheme of 8 units: it goes whole or not at all.
    expect(truncateText("x👨‍👩‍👧", 5)).toBe("x");
    expect(truncateText("e\u0301e\u0301", 3)).toBe("e\u0301");
    expect(truncateText("abcdef", 4)).toBe("abcd");
  });

  it("starts reading at a sure boundary only: never inside CR LF or after a mark that joins the next character", () => {
    expect(truncateText("ab\r\ncd", 3)).toBe("ab");
    expect(truncateText("ab\r\ncd", 4)).toBe("ab\r\n");
    // U+0600 prepends itself to the character after it: the two are one character to a reader.
    expect(truncateText("xy\u0600ab", 3)).toBe("xy");
    expect(truncateText("xy\u0600ab", 4)).toBe("xy\u0600a");
    expect(truncateText("abc\u0301d", 3)).toBe("ab");
  });

  it("hands the segmenter a window near the cut, or the whole start when no sure boundary is near", () => {
    const lengths: number[] = [];
    const original = Intl.Segmenter.prototype.segment;
    const segment = vi.spyOn(Intl.Segmenter.prototype, "segment").mockImplementation(function (this: Intl.Segmenter, input: string) {
      lengths.push(input.length);
      return original.call(this, input);
    });
    try {
      expect(truncateText("a".repeat(70_000), 65_536)).toBe("a".repeat(65_536));
      expect(truncateText(`${"a".repeat(65_000)}${"é".repeat(5_000)}`, 65_536)).toHaveLength(65_536);
      expect(truncateText("é".repeat(70_000), 65_536)).toHaveLength(65_536);
      expect(truncateText(`${"a".repeat(65_300)}${"é".repeat(4_700)}`, 65_536)).toHaveLength(65_536);
      expect(truncateText(`${"a".repeat(65_536 - 255)}${"é".repeat(4_700)}`, 65_536)).toHaveLength(65_536);
      expect(truncateText(`${"a".repeat(65_536 - 256)}${"é".repeat(4_700)}`, 65_536)).toHaveLength(65_536);
    } finally {
      segment.mockRestore();
    }
    // ASCII at the cut: from the cut; the last boundary between two ASCII characters up to 256 units
    // before it: from there; none that close: the whole start.
    expect(lengths).toEqual([2, 65_538, 65_538, 239, 258, 65_538]);
  });

  it("returns a well-formed start of the text within the limit, for any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme-composite" }), fc.nat({ max: 40 }), (text, max) => {
        const cut = truncateText(text, max);
        if (text.length <= max) expect(cut).toBe(text);
        else expect(cut.length).toBeLessThanOrEqual(max);
        expect(text.startsWith(cut)).toBe(true);
        expect(loneSurrogateIndex(cut)).toBe(-1);
      }),
    );
  });

  it("cuts where segmenting the whole text would: the window it reads past the cut is enough", () => {
    const whole = (text: string, max: number) => {
      let end = 0;
      for (const { index, segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)) {
        if (index + segment.length > max) break;
        end = index + segment.length;
      }
      return text.slice(0, end);
    };
    // Emoji with skin tones and joiners, flags (pairs of regional indicators), accents, Hangul jamo, CR LF,
    // a prepended mark that joins the character after it.
    // ASCII runs, and CR and LF apart, give the segmenter's window starts of its own to check.
    const pieces = ["a", "bc", "é", "e\u0301", "👍🏽", "👩‍👩‍👧", "🇯🇵", "🇫", "\u1100\u1161\u11A8", "\r\n", "\r", "\n", "क्‍ष", "\u0301", "\u200d", "\u0600"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), fc.nat({ max: 400 }), fc.nat({ max: 300 }), fc.constantFrom("x", "é", "\u0301"), (parts, cut, padding, filler) => {
        // A long start without ASCII leaves no sure boundary near the cut (the segmenter then starts at 0);
        // an ASCII one leaves one at every unit.
        const text = filler.repeat(padding) + parts.join("");
        expect(truncateText(text, cut)).toBe(whole(text, cut));
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 500) },
    );
  });
});

describe("clipText", () => {
  it("keeps text that fits and ends a longer one in an ellipsis within the limit, on a character boundary", () => {
    expect(clipText("abc", 3)).toBe("abc");
    expect(clipText("abcd", 3)).toBe("ab…");
    expect(clipText("a😀bc", 3)).toBe("a…");
  });
});

describe("loneSurrogateIndex", () => {
  it("finds half a character and passes whole ones", () => {
    expect(loneSurrogateIndex("ok 😀")).toBe(-1);
    expect(loneSurrogateIndex("ab\ud83d")).toBe(2);
    expect(loneSurrogateIndex("\ude00x")).toBe(0);
    expect(loneSurrogateIndex("😀".slice(0, 1) + "😀")).toBe(0);
  });
});
