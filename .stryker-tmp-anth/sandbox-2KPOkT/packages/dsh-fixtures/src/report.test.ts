import type { Message } from "dsh-llm";
import { describe, expect, it } from "vitest";
import type { RequestDifference } from "./diff.js";
import { formatFixtureReport, textDiff, type FixtureReport } from "./report.js";

const clean: FixtureReport = {
  name: "demo",
  ok: true,
  requests: { recorded: 1, replayed: 1, differences: [] },
  breaks: { added: [], removed: [] },
  sidecars: [],
  log: { differing: 0, examples: [] },
  replay: { overruns: [], unusedAnswers: 0, unusedSummaries: 0 },
};

const assistant: Message = {
  role: "assistant",
  source: "model",
  content: [
    { type: "reasoning", text: "think" },
    { type: "text", text: "look" },
    { type: "tool-call", callId: "c", name: "read_file", arguments: '{"path":"a"}' },
    { type: "redacted-reasoning", data: "xx" },
    { type: "provider-item", api: "openai-responses", item: { type: "reasoning", encrypted_content: "e" } },
  ],
};
const image: Message = { role: "user", source: "user", content: [{ type: "image", image: { digest: `sha256:${"a".repeat(64)}`, mediaType: "image/png", byteLength: 1, width: 1, height: 1 } }] };
const toolResult: Message = { role: "tool", callId: "c", toolName: "read_file", content: [{ type: "text", text: "x" }], isError: false, source: "tool" };

function difference(number: number, extra: Partial<RequestDifference> = {}): RequestDifference {
  return { number, turn: 0, step: number - 1, dispatchSeq: number * 10, missing: undefined, header: [], nodes: [], cache: "c", ...extra };
}

describe("formatFixtureReport", () => {
  it("says unchanged in one line, with the request count", () => {
    expect(formatFixtureReport(clean)).toBe("fixture demo: unchanged (1 request)");
    expect(formatFixtureReport({ ...clean, requests: { recorded: 3, replayed: 3, differences: [] } })).toBe("fixture demo: unchanged (3 requests)");
  });

  it("lays out every kind of difference, folding identical consecutive ones", () => {
    const nodes = [
      { node: 1, change: "replaced" as const, before: assistant, after: { ...assistant, content: [{ type: "text" as const, text: "other" }] } },
      { node: 2, change: "added" as const, before: undefined, after: image },
      { node: 3, change: "removed" as const, before: toolResult, after: undefined },
    ];
    const report: FixtureReport = {
      name: "demo",
      ok: false,
      requests: {
        recorded: 5,
        replayed: 6,
        differences: [difference(1, { header: ["model \"a\" → \"b\""], nodes }), difference(2, { header: ["model \"a\" → \"b\""], nodes }), difference(3, { header: ["model \"a\" → \"b\""], nodes }), difference(5), difference(6, { missing: "recorded", cache: "extra" }), difference(7, { missing: "replayed", cache: "never" })],
      },
      breaks: {
        added: [{ number: 2, why: "the tools changed", provider: { verdict: "hit" } }, { number: 4, why: "x" }],
        removed: [{ number: 3, why: "node 0 (system prompt) was replaced", provider: { verdict: "miss", reason: "system_changed", missedTokens: 5 } }],
      },
      sidecars: ["prompts/r1.txt differs"],
      log: { differing: 4, examples: ["seq 1: a", "seq 2: b", "seq 3: c"] },
      replay: { overruns: ["the replay made loop request 7, but the fixture recorded 6"], unusedAnswers: 1, unusedSummaries: 2 },
    };
    expect(formatFixtureReport(report).split("\n")).toEqual([
      "fixture demo: 6 of 6 requests differ, 2 new cache breaks, 1 cache break gone, 1 sidecar difference, 4 log events differ",
      "request 1 (turn 0 step 0, dispatched at seq 10):",
      '  header: model "a" → "b"',
      "  node 1 (assistant) replaced:",
      "    - [reasoning] think",
      "    - look",
      '    - read_file({"path":"a"})',
      "    - [redacted reasoning]",
      "    - [reasoning]",
      "    + other",
      "  node 2 (user) added:",
      `    + [image sha256:aaaaaaaaaaaa…]`,
      "  node 3 (tool result read_file) removed:",
      "    - x",
      "  cache: c",
      "requests 2-3: the same change",
      "request 5 (turn 0 step 4, dispatched at seq 50):",
      "  cache: c",
      "request 6 (turn 0 step 5, dispatched at seq 60):",
      "  the fixture has no request here: the replay sent one more",
      "  cache: extra",
      "request 7 (turn 0 step 6, dispatched at seq 70):",
      "  the replay never sent this request",
      "  cache: never",
      "new cache break at request 2: the tools changed; the provider's recorded diagnosis: hit",
      "new cache break at request 4: x",
      "cache break gone at request 3 (was: node 0 (system prompt) was replaced; the provider's recorded diagnosis: miss (system_changed))",
      "sidecar: prompts/r1.txt differs",
      "log: seq 1: a; seq 2: b; seq 3: c; …",
      "replay: the replay made loop request 7, but the fixture recorded 6",
      "replay: 1 recorded answer and 2 recorded summaries never asked for",
      "refresh the fixture (dsh fixture refresh DIR, or refreshFixture) to accept these changes",
    ]);
  });

  it("says a single log event differs, and a single summary", () => {
    const report: FixtureReport = { ...clean, ok: false, log: { differing: 1, examples: ["seq 0: x"] }, replay: { overruns: [], unusedAnswers: 0, unusedSummaries: 1 } };
    const lines = formatFixtureReport(report).split("\n");
    expect(lines[0]).toBe("fixture demo: 0 of 1 requests differ, 1 log event differs");
    expect(lines).toContain("log: seq 0: x");
    expect(lines).toContain("replay: 0 recorded answers and 1 recorded summary never asked for");
  });
});

describe("textDiff", () => {
  it("prefixes removed and added lines, clips long lines and long diffs", () => {
    expect(textDiff("a\nb\n", "a\nc\n", "  ")).toEqual(["  - b", "  + c"]);
    expect(textDiff("x", "x", "")).toEqual([]);
    expect(textDiff("", "y".repeat(200), "")).toEqual([`+ ${"y".repeat(159)}…`]);
    const many = textDiff("", Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n"), "");
    expect(many).toHaveLength(13);
    expect(many[11]).toBe("+ line 11");
    expect(many[12]).toBe("… 8 more lines");
  });
});
