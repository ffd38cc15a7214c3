import { describe, expect, it } from "vitest";
import { AppendList } from "./append-list.js";

describe("AppendList", () => {
  it("keeps every view's items when an older view is appended to", () => {
    const base = AppendList.of(["a"]).append("b");
    const newer = base.append("c");
    const branch = base.append("x");
    expect(newer.toArray()).toEqual(["a", "b", "c"]);
    expect(branch.toArray()).toEqual(["a", "b", "x"]);
    expect(base.toArray()).toEqual(["a", "b"]);
    expect([newer.at(2), branch.at(2), base.at(2), base.at(-1)]).toEqual(["c", "x", undefined, undefined]);
  });

  it("tells a prefix from the views that share its array", () => {
    const base = AppendList.of(["a"]).append("b");
    const newer = base.append("c").append("d");
    expect(newer.startsWith(base)).toBe(true);
    expect(newer.startsWith(newer)).toBe(true);
    expect(base.startsWith(newer)).toBe(false);
    // Appending to an older view copies: the branch shares no array with the others, so it cannot tell.
    const branch = base.append("x");
    expect(branch.startsWith(base)).toBe(false);
    expect(branch.append("y").startsWith(branch)).toBe(true);
    expect(newer.startsWith(branch)).toBe(false);
    expect(branch.startsWith(newer)).toBe(false);
    // Equal items in another array cannot be told without reading them.
    expect(AppendList.of(["a", "b", "c"]).startsWith(base)).toBe(false);
  });

  it("gives the items after a prefix it can tell, and nothing when it cannot", () => {
    const base = AppendList.of(["a"]).append("b");
    const newer = base.append("c").append("d");
    expect(newer.itemsAfter(base)).toEqual(["c", "d"]);
    expect(newer.itemsAfter(newer)).toEqual([]);
    expect(base.itemsAfter(newer)).toBeUndefined();
    expect(base.append("x").itemsAfter(base)).toBeUndefined();
  });
});
