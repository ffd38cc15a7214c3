import { isDeepFrozen, type Message } from "dsh-llm";
import type { EventInput } from "dsh-log";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deriveMessagesFromEvents } from "./projection.js";
import { systemMessageEvent } from "./events.js";
import { SurfaceManager } from "./surface-manager.js";
import { assistant, surfaceLog, toolResult, user } from "./test-support/session.js";

/**
 * Drives a random but valid session from a list of choices: turns, tool calls and results,
 * prompt changes, compactions over pair-closed ranges, trims. Records the live messages after
 * every append, with the log length they belong to.
 */
async function drive(choices: readonly number[]) {
  const { log, manager } = surfaceLog();
  const snapshots: { length: number; seqs: number[]; messages: Message[] }[] = [];
  let counter = 0;
  // A second manager attached halfway, which catches up from the log's admitted surface at its first read.
  let halfway: SurfaceManager | undefined;
  for (const [index, choice] of choices.entries()) {
    if (index === choices.length >> 1) (halfway = new SurfaceManager(log)).deriveMessages();
    const state = manager.state;
    const nodes = state.nodes.toArray();
    let input: EventInput | undefined;
    if (state.openCalls.length > 0) {
      const open = state.openCalls.toArray();
      const call = open[choice % open.length]!;
      input = toolResult(call.callId, call.name, `output ${counter++} `.repeat(1 + (choice % 4)));
    } else {
      switch (choice % 6) {
        case 0:
          input = user(`question ${counter++}`);
          break;
        case 1:
          input = assistant(`answer ${counter++}`);
          break;
        case 2: {
          const calls = Array.from({ length: 1 + (choice % 3) }, () => ({ callId: `call-${counter++}`, name: "read_file" }));
          input = assistant("let me look", calls);
          break;
        }
        case 3:
          if (nodes.length === 0 || nodes[0]?.type === "system/message") input = manager.systemPromptInput(`prompt ${choice % 3}`);
          break;
        case 4: {
          // A range [i, j] is pair-closed when it starts on a non-result and the node after it is not a result.
          const starts = nodes.flatMap((node, i) => (i > 0 && node.type !== "tool/result" ? [i] : []));
          const start = starts[choice % Math.max(1, starts.length)];
          if (start === undefined) break;
          const ends = nodes.flatMap((_node, j) => (j >= start && nodes[j + 1]?.type !== "tool/result" ? [j] : []));
          const end = ends[(choice >> 3) % ends.length]!;
          input = manager.replaceInput({ start: nodes[start]!.seq, end: nodes[end]!.seq }, user(`summary ${counter++}`, "compaction"));
          break;
        }
        case 5: {
          const results = nodes.flatMap((node) => (node.type === "tool/result" ? [node] : []));
          const target = results[choice % Math.max(1, results.length)];
          if (target === undefined) break;
          input = manager.replaceInput({ start: target.seq, end: target.seq }, toolResult(target.data.callId, target.data.toolName, "[trimmed]"));
          break;
        }
      }
    }
    if (input === undefined) continue;
    await log.append(input);
    snapshots.push({ length: log.length, seqs: manager.nodeSeqs(), messages: manager.deriveMessages() });
  }
  return { log, manager, snapshots, halfway };
}

describe("SurfaceManager.deriveMessages", () => {
  it("equals the offline fold of deriveEventMessage at every prefix of random sessions", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(1000), { maxLength: 60 }), async (choices) => {
        const { log, manager, snapshots, halfway } = await drive(choices);
        const events = log.slice();
        for (const { length, messages } of snapshots) {
          expect(messages).toEqual(deriveMessagesFromEvents(events.slice(0, length)));
        }
        // A manager attached to a log that already holds the events agrees as well.
        const offline = deriveMessagesFromEvents(events);
        for (const other of [new SurfaceManager(log), halfway ?? new SurfaceManager(log)]) {
          expect(other.deriveMessages()).toEqual(offline);
          expect([other.nodeSeqs(), other.generation, other.state.openCalls.toArray()]).toEqual([manager.nodeSeqs(), manager.generation, manager.state.openCalls.toArray()]);
        }
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 150) },
    );
  });

  it("returns fresh arrays over shared, deep-frozen messages that survive appends and replaces", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(1000), { maxLength: 40 }), async (choices) => {
        const { manager, snapshots } = await drive(choices);
        const first = manager.deriveMessages();
        const second = manager.deriveMessages();
        expect(first).not.toBe(second);
        first.forEach((message, i) => {
          expect(second[i]).toBe(message);
          expect(isDeepFrozen(message)).toBe(true);
        });
        // Each surface entry is projected once: the same seq maps to the same object in every snapshot.
        const projectionOf = new Map<number, Message>();
        for (const { seqs, messages } of snapshots) {
          seqs.forEach((seq, i) => {
            const message = messages[i]!;
            if (projectionOf.has(seq)) expect(projectionOf.get(seq)).toBe(message);
            else projectionOf.set(seq, message);
          });
        }
      }),
      { numRuns: 100 },
    );
  });

  it("keeps no record of its own: each current node is the logged event, before and after a replace", async () => {
    const { log, manager } = surfaceLog();
    await log.append([systemMessageEvent.input({ content: "p", source: "system-prompt" }), user("a"), assistant("b", [{ callId: "c1", name: "read_file" }]), toolResult("c1", "read_file", "out")]);
    await manager.replaceGeneration({ start: 1, end: 1 }, user("summary", "compaction"));
    const nodes = manager.state.nodes.toArray();
    expect(nodes.map((node) => node.seq)).toEqual([0, 4, 2, 3]);
    nodes.forEach((node) => expect(node).toBe(log.get(node.seq)));
  });

  it("marks several replacements with consecutive generations, to be appended in one batch", async () => {
    const { log, manager } = surfaceLog();
    await log.append([user("a"), assistant("b"), user("c"), assistant("d")]);
    const inputs = manager.replaceInputs([
      { range: { start: 1, end: 1 }, replacement: user("B", "trim") },
      { range: { start: 3, end: 3 }, replacement: user("D", "trim") },
    ]);
    expect(inputs.map((input) => (input.data as { replaces: unknown }).replaces)).toEqual([
      { start: 1, end: 1, generation: 1 },
      { start: 3, end: 3, generation: 2 },
    ]);
    await log.append(inputs);
    expect(manager.generation).toBe(2);
    expect(manager.nodeSeqs()).toEqual([0, 4, 2, 5]);
  });

  it("keeps projections of surviving nodes across a replace and makes mutation throw", async () => {
    const { log, manager } = surfaceLog();
    await log.append([systemMessageEvent.input({ content: "  ", source: "system-prompt" }), user("a"), assistant("b"), user("c")]);
    const before = manager.deriveMessages();
    await manager.replaceGeneration({ start: 1, end: 2 }, user("summary", "compaction"));
    const after = manager.deriveMessages();
    expect(after[0]).toBe(before[0]);
    expect(after[2]).toBe(before[3]);
    expect(after[0]).toEqual({ role: "system", content: "  ", source: "system-prompt" });
    expect(() => {
      (after[1] as { source: string }).source = "forged";
    }).toThrow(TypeError);
  });
});

describe("SurfaceManager.systemPromptInput", () => {
  it("appends on an empty surface, replaces node 0 when the prompt differs, and owes nothing otherwise", async () => {
    const { log, manager } = surfaceLog();
    await log.append(manager.systemPromptInput("v1")!);
    expect(manager.systemPromptInput("v1")).toBeUndefined();
    await log.append(user("hi"));
    const change = manager.systemPromptInput("v2");
    expect(change?.data).toMatchObject({ content: "v2", replaces: { start: 0, end: 0, generation: 1 } });
    await log.append(change!);
    expect(manager.systemPrompt()).toBe("v2");
    expect(manager.nodeSeqs()).toEqual([2, 1]);
  });

  it("owes a replace for a prompt that differs only in whitespace: the prompt is compared exactly", async () => {
    const { log, manager } = surfaceLog();
    await log.append(manager.systemPromptInput("Be brief.")!);
    for (const changed of ["Be brief. ", "Be brief.\n", " Be brief.", "Be  brief."]) {
      expect(manager.systemPromptInput(changed)?.data).toMatchObject({ content: changed, replaces: { start: 0, end: 0 } });
    }
  });
});
