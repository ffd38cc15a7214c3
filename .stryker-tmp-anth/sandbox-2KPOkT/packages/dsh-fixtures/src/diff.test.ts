import type { ReconstructedRequest } from "dsh-agent";
import type { Message, ToolSchema } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { cacheBreaks, compareRequests, nodeChanges } from "./diff.js";

const system: Message = { role: "system", content: "Be brief.", source: "system-prompt" };
const user = (text: string): Message => ({ role: "user", content: [{ type: "text", text }], source: "user" });
const tool: Message = { role: "tool", callId: "c1", toolName: "read_file", content: [{ type: "text", text: "x" }], isError: false, source: "tool" };
const read: ToolSchema = { name: "read_file", description: "Read", parameters: { type: "object" } };

function request(messages: Message[], options: { model?: string; provider?: string; tools?: ToolSchema[]; maxTokens?: number; seq?: number } = {}): ReconstructedRequest {
  const config = { provider: options.provider ?? "p", model: options.model ?? "m", ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }) };
  const tools = options.tools ?? [read];
  return {
    turn: 0,
    step: options.seq ?? 0,
    dispatchSeq: options.seq ?? 5,
    snapshot: { reason: "initial", header: { config, tools } },
    request: { messages, config, tools },
  } as unknown as ReconstructedRequest;
}

describe("nodeChanges", () => {
  it("names replaced, added and removed nodes by position, equal ones left out", () => {
    expect(nodeChanges([system, user("a")], [system, user("a")])).toEqual([]);
    expect(nodeChanges([system, user("a"), tool], [system, user("b")])).toEqual([
      { node: 1, change: "replaced", before: user("a"), after: user("b") },
      { node: 2, change: "removed", before: tool, after: undefined },
    ]);
    expect(nodeChanges([system], [system, user("a")])).toEqual([{ node: 1, change: "added", before: undefined, after: user("a") }]);
  });
});

describe("compareRequests", () => {
  it("leaves out equal requests and numbers the rest from 1", () => {
    const same = request([system, user("a")]);
    expect(compareRequests([same, same], [same, same])).toEqual([]);
    const changed = compareRequests([same, same], [same, request([system, user("b")])]);
    expect(changed.map((difference) => [difference.number, difference.nodes.length])).toEqual([[2, 1]]);
  });

  it("reports a request only one side has", () => {
    const one = request([system, user("a")], { seq: 9 });
    expect(compareRequests([], [one])).toEqual([{ number: 1, turn: 0, step: 9, dispatchSeq: 9, missing: "recorded", header: [], nodes: [], cache: "an extra request: one more full-price prefix read" }]);
    expect(compareRequests([one], [])[0]).toMatchObject({ missing: "replayed", cache: "a request the replay never sent" });
  });

  it("says what each kind of difference costs in prompt caching", () => {
    const base = request([system, user("a"), tool]);
    const cache = (after: ReconstructedRequest) => compareRequests([base], [after])[0]!.cache;
    expect(cache(request([system, user("a"), tool], { model: "n" }))).toBe("another model: no cached prefix carries over");
    expect(cache(request([system, user("a"), tool], { provider: "q" }))).toBe("another model: no cached prefix carries over");
    expect(cache(request([system, user("a"), tool], { tools: [] }))).toBe("the tools differ, and they precede the messages: nothing a cache the recorded requests warmed holds is read");
    expect(cache(request([{ ...system, content: "Be kind." }, user("a"), tool]))).toBe("the prompt differs from node 0 (the system prompt): nothing after the tools is read from a cache the recorded requests warmed");
    expect(cache(request([system, user("b"), tool]))).toBe("the prompt differs from node 1 (user): a cache the recorded requests warmed is read up to node 0 at most");
    expect(cache(request([system, user("a"), { ...tool, content: [] }]))).toBe("the prompt differs from node 2 (tool result read_file): a cache the recorded requests warmed is read up to node 1 at most");
    expect(cache(request([system, user("a"), tool, user("more")]))).toBe("the prompt extends the recorded one from node 3: its whole prefix is still read");
    expect(cache(request([system, user("a"), tool], { maxTokens: 10 }))).toBe("the prompt is the same; only call settings differ");
    expect(compareRequests([base], [request([system, user("a"), tool], { maxTokens: 10 })])[0]!.header).toEqual(["maxTokens unset → 10"]);
  });
});

describe("cacheBreaks", () => {
  it("names each request that does not extend the previous one, and why", () => {
    const first = request([system, user("a")]);
    const extended = request([system, user("a"), tool]);
    const breaks = cacheBreaks([
      first,
      extended,
      request([system, user("a"), tool], { model: "n" }),
      request([system, user("a"), tool], { model: "n", tools: [] }),
      request([system, user("b"), tool], { model: "n", tools: [] }),
      request([system, user("b"), tool, user("c")], { model: "n", tools: [] }),
      request([system, user("b"), { ...tool, content: [] }, user("c")], { model: "n", tools: [] }),
    ]);
    expect([...breaks]).toEqual([
      [3, "the model changed"],
      [4, "the tools changed"],
      [5, "node 1 (user) was replaced"],
      [7, "node 2 (tool result read_file) was replaced"],
    ]);
    expect(cacheBreaks([first])).toEqual(new Map());
    expect(cacheBreaks([first, request([system, user("a")], { provider: "q" })])).toEqual(new Map([[2, "the model changed"]]));
  });
});
