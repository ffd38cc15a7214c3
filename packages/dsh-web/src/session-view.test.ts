import { describe, expect, it } from "vitest";
import { breakView, buildSessionView, sessionListItem, usageFacts } from "./session-view.js";
import { sampleSession } from "./test-support/session.js";

const info = { sessionId: "s1", createdAt: 5 };

describe("buildSessionView", () => {
  it("marks each node kept, appended or replaced against the previous request, with the seq of its event", async () => {
    const { events, requests } = await sampleSession();
    const view = buildSessionView({ info, events, requests });
    // Only the nodes a request adds are listed; the ones it kept are counted.
    expect(view.requests.map((request) => `${request.kept}:${request.nodes.map((node) => node.status[0]).join("")}`)).toEqual(["0:aa", "2:aa", "3:raa", "6:aa", "8:aa", "10:aa"]);
    const second = view.requests[1]!;
    expect(second.nodes.map((node) => [node.node, node.role, events[node.seq]!.type])).toEqual([[2, "assistant", "assistant/message"], [3, "tool result echo", "tool/result"]]);
    // Request 3 follows a trim between turns: the tool result is replaced, the turn's last answer and the new input appended.
    const trimmed = view.requests[2]!.nodes[0]!;
    expect(trimmed.node).toBe(3);
    expect(trimmed).toMatchObject({ status: "replaced", role: "tool result echo" });
    expect((events[trimmed.seq]!.data as { replaces?: unknown }).replaces).toBeDefined();
    expect(view.requests[2]!.removed).toBe(1);
    expect(view.requests[3]!.removed).toBe(0);
  });

  it("names the header snapshot written for a request and what changed since the previous one", async () => {
    const { events, requests } = await sampleSession();
    const view = buildSessionView({ info, events, requests });
    expect(view.requests.map((request) => request.header?.reason ?? "-")).toEqual(["initial", "-", "series", "-", "change", "-"]);
    expect(view.requests[4]!.header!.changes).toEqual(['model "a" → "b"']);
    expect(view.requests[2]!.header!.changes).toEqual([]);
    expect(events[view.requests[4]!.header!.seq]!.type).toBe("request/header");
  });

  it("splits prompt tokens into cached, repeated-but-not-read and new, and marks breaks from the usage when no facts are given", async () => {
    const { events, requests } = await sampleSession();
    const view = buildSessionView({ info, events, requests });
    expect(view.requests[1]!.tokens).toEqual({ prompt: 400, cacheRead: 100, repeated: 100, fresh: 200, reported: true });
    expect(view.requests.map((request) => request.break !== undefined)).toEqual([false, false, true, false, true, false]);
    expect(view.requests[2]!.break!.explanations).toEqual([`see the events from seq ${requests[1]!.dispatchSeq + 1} to seq ${requests[2]!.dispatchSeq - 1}`]);
    // The break repeats none of the previous request's 400 tokens: a full break, not a minor one.
    expect(view.requests[2]!.break).toMatchObject({ repeatedTokens: 0, previousTokens: 400, minor: false });
    expect(usageFacts(events, requests).map((fact) => fact.stableTokens)).toEqual([0, 200, 0, 600, 0, 1000]);
  });

  it("calls a break minor only when it still repeats nine tenths of the previous request's prompt", () => {
    expect(breakView({ stableTokens: 2880, explanations: ["x"] }, 2921)).toEqual({ explanations: ["x"], repeatedTokens: 2880, previousTokens: 2921, minor: true });
    expect(breakView({ stableTokens: 900, explanations: [] }, 1000)).toMatchObject({ minor: true });
    expect(breakView({ stableTokens: 899, explanations: [] }, 1000)).toMatchObject({ minor: false });
    // More repeated than the previous prompt held is counted as all of it; a first request has nothing before it.
    expect(breakView({ stableTokens: 50, explanations: [] }, 40)).toMatchObject({ repeatedTokens: 40, minor: true });
    expect(breakView({ stableTokens: 0, explanations: [] }, undefined)).toEqual({ explanations: [], repeatedTokens: 0, previousTokens: 0, minor: false });
  });

  it("takes the caller's facts as given and clamps the bar to the prompt", async () => {
    const { events, requests } = await sampleSession();
    const facts = requests.map(() => ({ promptTokens: 10, stableTokens: 8, cacheReadTokens: 12, isBreak: false, explanations: [], misses: ["m"], wire: "{}" }));
    const view = buildSessionView({ info, events, requests, facts });
    expect(view.requests[0]).toMatchObject({ tokens: { prompt: 10, cacheRead: 10, repeated: 0, fresh: 0 }, misses: ["m"], wire: "{}", images: [] });
    expect(view.requests[0]!.diagnosis).toBeUndefined();
  });

  it("carries the provider's cache diagnosis and its agreement with the log onto the request", async () => {
    const { events, requests } = await sampleSession();
    const provider = { verdict: "miss", reason: "model_changed", missedTokens: 40, agreement: "agree" };
    const facts = requests.map(() => ({ promptTokens: 10, stableTokens: 0, cacheReadTokens: 0, isBreak: true, explanations: ["x (seq 1)"], misses: [], provider }));
    expect(buildSessionView({ info, events, requests, facts }).requests[1]!.diagnosis).toEqual(provider);
  });

  it("lays out the timeline, fork points and the list entry", async () => {
    const { events, requests } = await sampleSession();
    const view = buildSessionView({ info: { ...info, parent: { sessionId: "p", seedLength: 3 } }, events, requests, composer: { provider: "scripted", model: "b", explicit: {} } });
    expect(view.timeline).toHaveLength(events.length);
    expect(view.timeline[2]).toMatchObject({ seq: 2, kind: "fork", label: expect.stringMatching(/fork point/) });
    expect(view.timeline.find((entry) => entry.request === 6)).toMatchObject({ type: "request/dispatch", kind: "request" });
    expect(view.timeline.filter((entry) => entry.kind === "trim")).toHaveLength(1);
    expect(view.forkPoints).toHaveLength(3);
    expect(view.composer).toEqual({ provider: "scripted", model: "b", explicit: {} });
    expect(sessionListItem(info, events)).toEqual({ id: "s1", createdAt: 5, models: ["scripted/a", "scripted/b"], turns: 3, requests: 6, cacheReadShare: 1500 / 4200, prompt: "one" });
    expect(sessionListItem(info, [])).toEqual({ id: "s1", createdAt: 5, models: [], turns: 0, requests: 0, cacheReadShare: null });
    // A subagent's session names the session and call that ran it (its first event).
    const linked = { seq: 0, type: "session/parent", time: 5, data: { sessionId: "p", answerSeq: 3, callId: "c1", toolName: "research" } };
    expect(sessionListItem(info, [linked])).toEqual({ id: "s1", createdAt: 5, models: [], turns: 0, requests: 0, cacheReadShare: null, subagentOf: { id: "p", callId: "c1" } });
    expect(sessionListItem(info, [...events, { ...linked, seq: events.length }])).not.toHaveProperty("subagentOf");
    // A session in a file is named by its file; one behind a URL (a database) is not.
    expect(sessionListItem(info, [], "/home/me/.dsh/sessions/s1.jsonl")).toMatchObject({ file: "s1.jsonl" });
    expect(sessionListItem(info, [], "postgres://db.example/dsh#s1")).not.toHaveProperty("file");
  });

  it("shows one page at a time as the whole view shows it, with every page and every break of the session", async () => {
    const { events, requests } = await sampleSession();
    const whole = buildSessionView({ info, events, requests });
    expect(whole.pages).toEqual([{ from: 0, to: events.length - 1, firstTurn: 0, lastTurn: 2 }]);
    expect(whole.page).toBe(1);
    expect(whole).not.toHaveProperty("composer");
    expect(whole.breaks).toEqual([3, 5].map((number) => ({ number, dispatchSeq: requests[number - 1]!.dispatchSeq })));
    for (const pageEvents of [1, 4, 9, 20]) {
      const last = buildSessionView({ info, events, requests, pageEvents });
      expect(last.page).toBe(last.pages.length);
      const shown = last.pages.map((_, index) => buildSessionView({ info, events, requests, pageEvents, page: { page: index + 1 } }));
      // Each request is shown on the page of its dispatch, as the whole view shows it: node deltas reach back across pages.
      expect(shown.flatMap((view) => view.timeline)).toEqual(whole.timeline);
      expect(shown.flatMap((view) => view.requests)).toEqual(whole.requests);
      for (const view of shown) {
        expect(view.timeline.every((entry) => entry.seq >= view.pages[view.page - 1]!.from && entry.seq <= view.pages[view.page - 1]!.to)).toBe(true);
        expect(view).toMatchObject({ session: whole.session, breaks: whole.breaks, forkPoints: whole.forkPoints, pages: last.pages });
      }
      expect(shown.at(-1)).toEqual(last);
    }
    const second = requests[1]!.dispatchSeq;
    expect(buildSessionView({ info, events, requests, pageEvents: 4, page: { seq: second } }).requests.map((request) => request.number)).toContain(2);
  });

  it("shows the start of the first prompt, clipped, and no prompt when it is empty", () => {
    const user = (seq: number, text: string) => ({ seq, type: "user/message", time: 0, data: { content: [{ type: "text", text }], source: "user" } });
    const long = `  ${"word ".repeat(60)}`;
    const item = sessionListItem(info, [user(0, long), user(1, "later")]);
    expect(item.prompt).toBe(`${"word ".repeat(60).trim().slice(0, 159)}…`);
    expect(sessionListItem(info, [user(0, "  ")])).not.toHaveProperty("prompt");
  });
});
