import { freezeRequest } from "dsh-llm";
import { describe, expect, it } from "vitest";
import { chatSpan, toolSpan, turnSpan, type ChatStep, type SpanPlace, type ToolRun, type TurnRun } from "./spans.js";

const place: SpanPlace = { sessionId: "s", traceId: "a".repeat(32), spanId: "b".repeat(16), parentSpanId: "c".repeat(16), seq: 9, content: false };
const header = { config: { provider: "deepseek", model: "deepseek-v4-flash" } };
const request = freezeRequest({ config: header.config, messages: [{ role: "system", content: "Be brief.", source: "system-prompt" }, { role: "user", content: [{ type: "text", text: "Hi" }], source: "user" }] });
const step = (end: ChatStep["end"], more: Partial<ChatStep> = {}): ChatStep => ({ turn: 1, step: 2, startMs: 1000, endMs: 1500, header, request, causes: [], retries: [], answer: [{ type: "text", text: "Hello." }], end, ...more });

describe("chatSpan", () => {
  it("is a client span named after the model, under the turn, with the ids and times given", () => {
    const span = chatSpan(place, step({ reason: "completed", finishReason: "stop" }));
    expect(span).toMatchObject({ name: "chat deepseek-v4-flash", kind: "client", traceId: place.traceId, spanId: place.spanId, parentSpanId: place.parentSpanId, startMs: 1000, endMs: 1500, status: { code: "unset" }, links: [] });
    expect(span.attributes).toEqual({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "deepseek",
      "gen_ai.request.model": "deepseek-v4-flash",
      "gen_ai.request.stream": true,
      "gen_ai.conversation.id": "s",
      "dsh.session.id": "s",
      "dsh.seq": 9,
      "dsh.content.ref": "dsh:s/9",
      "gen_ai.response.finish_reasons": ["stop"],
      "dsh.turn": 1,
      "dsh.step": 2,
      "dsh.step.end_reason": "completed",
      "dsh.request.sent": true,
    });
  });

  it("says how a request failed: the logged code, else the step's end reason", () => {
    const failed = chatSpan(place, step({ reason: "error", error: { code: "LLM_RATE_LIMITED" } }));
    expect([failed.status, failed.attributes["error.type"]]).toEqual([{ code: "error", message: "LLM_RATE_LIMITED" }, "LLM_RATE_LIMITED"]);
    const interrupted = chatSpan(place, step({ reason: "interrupted" }));
    expect([interrupted.status, interrupted.attributes["error.type"]]).toEqual([{ code: "error", message: "interrupted" }, "interrupted"]);
    const long = chatSpan(place, step({ reason: "max-tokens", finishReason: "length" }));
    expect([long.status.code, long.attributes["error.type"], long.attributes["gen_ai.response.finish_reasons"]]).toEqual(["unset", undefined, ["length"]]);
    expect(chatSpan(place, step({ reason: "aborted", unsent: true })).attributes).toMatchObject({ "error.type": "aborted", "dsh.request.sent": false });
  });

  it("carries the usage, the answer's id, the logged break causes and the provider's verdict when there are any", () => {
    const span = chatSpan(
      place,
      step({ reason: "completed", finishReason: "tool-calls", usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 8, cacheWriteTokens: 0 }, responseId: "r1", cacheDiagnosis: { verdict: "miss", reason: "tools_changed", missedTokens: 3 } }, {
        causes: [{ cause: "tools", seq: 4 }, { cause: "messages", seq: 6 }],
      }),
    );
    expect(span.attributes).toMatchObject({
      "gen_ai.response.id": "r1",
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "gen_ai.usage.cache_read.input_tokens": 8,
      "dsh.cache.break_causes": ["tools", "messages"],
      "dsh.cache.break_cause_seqs": [4, 6],
      "dsh.cache.provider_verdict": "miss: tools_changed",
    });
    expect(chatSpan(place, step({ reason: "completed", cacheDiagnosis: { verdict: "hit" } })).attributes["dsh.cache.provider_verdict"]).toBe("hit");
    const bare = chatSpan(place, step({ reason: "completed" })).attributes;
    for (const key of ["gen_ai.response.finish_reasons", "gen_ai.usage.input_tokens", "gen_ai.response.id", "dsh.cache.break_causes", "dsh.cache.provider_verdict", "error.type"]) expect(bare).not.toHaveProperty(key);
  });

  it("adds the messages only with content, the tool definitions only when tools were offered, the answer only when there was one", () => {
    const tools = [{ name: "clock", description: "The time", parameters: { type: "object" } }];
    const withContent = chatSpan({ ...place, content: true }, step({ reason: "completed", finishReason: "stop" }, { header: { ...header, tools } })).attributes;
    expect(JSON.parse(withContent["gen_ai.system_instructions"] as string)).toEqual([{ type: "text", content: "Be brief." }]);
    expect(JSON.parse(withContent["gen_ai.output.messages"] as string)).toEqual([{ role: "assistant", parts: [{ type: "text", content: "Hello." }], finish_reason: "stop" }]);
    expect(JSON.parse(withContent["gen_ai.tool.definitions"] as string)).toEqual([{ type: "function", name: "clock", description: "The time", parameters: { type: "object" } }]);
    const noAnswer = chatSpan({ ...place, content: true }, step({ reason: "error", error: { code: "LLM_TIMEOUT" } }, { answer: undefined, header: { ...header, tools: [] } })).attributes;
    expect(noAnswer).not.toHaveProperty("gen_ai.output.messages");
    expect(noAnswer).not.toHaveProperty("gen_ai.tool.definitions");
    expect(JSON.parse(chatSpan({ ...place, content: true }, step({ reason: "error" })).attributes["gen_ai.output.messages"] as string)[0].finish_reason).toBe("error");
  });
});

describe("turnSpan", () => {
  const run = (more: Partial<TurnRun>): TurnRun => ({ turn: 3, startMs: 10, endMs: 90, header, usage: undefined, reason: "completed", errorCode: undefined, links: [], agentName: undefined, ...more });

  it("is an internal root span named invoke_agent, with the agent's name when given", () => {
    const span = turnSpan({ ...place, parentSpanId: undefined }, run({ agentName: "helper", usage: { inputTokens: 5, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } }));
    expect(span).toMatchObject({ name: "invoke_agent helper", kind: "internal", parentSpanId: undefined, startMs: 10, endMs: 90, status: { code: "unset" } });
    expect(span.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "helper", "gen_ai.provider.name": "deepseek", "gen_ai.request.model": "deepseek-v4-flash", "gen_ai.usage.input_tokens": 5, "dsh.turn": 3, "dsh.turn.end_reason": "completed" });
    const plain = turnSpan(place, run({ header: undefined }));
    expect(plain.name).toBe("invoke_agent");
    for (const key of ["gen_ai.agent.name", "gen_ai.provider.name", "gen_ai.request.model", "gen_ai.usage.input_tokens"]) expect(plain.attributes).not.toHaveProperty(key);
  });

  it("is an error for a turn that failed, was aborted or interrupted, and not for one stopped by a limit", () => {
    expect(["completed", "max-steps", "max-tokens"].map((reason) => turnSpan(place, run({ reason })).status.code)).toEqual(["unset", "unset", "unset"]);
    expect(turnSpan(place, run({ reason: "error", errorCode: "LLM_AUTH" })).attributes["error.type"]).toBe("LLM_AUTH");
    expect(["aborted", "interrupted", "blocked"].map((reason) => turnSpan(place, run({ reason })).attributes["error.type"])).toEqual(["aborted", "interrupted", "blocked"]);
  });
});

describe("toolSpan", () => {
  const run = (more: Partial<ToolRun>): ToolRun => ({ turn: 1, callId: "c1", toolName: "clock", startMs: 5, endMs: 6, argumentsText: '{"zone":"UTC"}', content: [{ type: "text", text: "12:00" }], isError: false, approval: undefined, ...more });

  it("names the tool and the call, and the approval when one was logged", () => {
    const span = toolSpan(place, run({ approval: { allowed: true, by: "policy" } }));
    expect(span).toMatchObject({ name: "execute_tool clock", kind: "internal", status: { code: "unset" } });
    expect(span.attributes).toEqual({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "clock",
      "gen_ai.tool.call.id": "c1",
      "gen_ai.tool.type": "function",
      "gen_ai.conversation.id": "s",
      "dsh.session.id": "s",
      "dsh.seq": 9,
      "dsh.content.ref": "dsh:s/9",
      "dsh.turn": 1,
      "dsh.tool.approved": true,
      "dsh.tool.approved_by": "policy",
    });
    expect(toolSpan(place, run({ turn: undefined })).attributes).not.toHaveProperty("dsh.turn");
  });

  it("takes a failed call's error type from dsh's error text, else calls it a tool error", () => {
    const type = (text: string) => toolSpan(place, run({ isError: true, content: [{ type: "text", text }] })).attributes["error.type"];
    expect(type("Error [TOOL_DENIED]: not run: denied by policy")).toBe("TOOL_DENIED");
    expect(type("Error [X1_Y]: z")).toBe("X1_Y");
    expect(type("failed: Error [TOOL_FAILED]")).toBe("tool_error");
    expect(type("Error [tool]: lower case")).toBe("tool_error");
    expect(toolSpan(place, run({ isError: true, content: [] })).attributes["error.type"]).toBe("tool_error");
    expect(toolSpan(place, run({ isError: true, content: [{ type: "text", text: "Error [TOOL_FAILED]: no" }] })).status).toEqual({ code: "error", message: "TOOL_FAILED" });
  });

  it("adds the arguments and a successful result only with content", () => {
    expect(toolSpan({ ...place, content: true }, run({})).attributes).toMatchObject({ "gen_ai.tool.call.arguments": '{"zone":"UTC"}', "gen_ai.tool.call.result": "12:00" });
    const failed = toolSpan({ ...place, content: true }, run({ isError: true, argumentsText: undefined })).attributes;
    expect(failed).not.toHaveProperty("gen_ai.tool.call.result");
    expect(failed).not.toHaveProperty("gen_ai.tool.call.arguments");
    expect(toolSpan({ ...place, content: true }, run({ argumentsText: "not json" })).attributes["gen_ai.tool.call.arguments"]).toBe('"not json"');
  });
});
