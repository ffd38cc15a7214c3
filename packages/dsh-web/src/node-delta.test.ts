import { requestDispatchEvent } from "dsh-agent";
import { AppendList, advanceSurface, emptySurface, type SurfaceNode } from "dsh-surface";
import { describe, expect, it } from "vitest";
import { nodeDelta } from "./node-delta.js";
import { sampleSession } from "./test-support/session.js";

describe("nodeDelta", () => {
  it("finds the same changes whether it can tell the nodes only grew or has to compare every one", async () => {
    const { events } = await sampleSession();
    const replacements = new Set(events.filter((event) => (event.data as { replaces?: unknown }).replaces !== undefined).map((event) => event.seq));
    let surface = emptySurface;
    let previous: AppendList<SurfaceNode> | undefined;
    const deltas: string[] = [];
    for (const event of events) {
      surface = advanceSurface(surface, event);
      if (!requestDispatchEvent.is(event)) continue;
      const delta = nodeDelta(previous, surface, replacements);
      // A copy shares no array with the surface: every node is compared.
      expect(nodeDelta(previous === undefined ? undefined : AppendList.of(previous.toArray()), surface, replacements)).toEqual(delta);
      expect(delta.kept + delta.nodes.length).toBe(surface.state.nodes.length);
      deltas.push(`${delta.kept}+${delta.nodes.map((node) => node.status[0]).join("")}-${delta.removed}`);
      previous = surface.state.nodes;
    }
    // The trim before request 3 replaces a tool result and drops the node it replaced.
    expect(deltas).toEqual(["0+aa-0", "2+aa-0", "3+raa-1", "6+aa-0", "8+aa-0", "10+aa-0"]);
  });
});
