import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_REASONING, deepseekVerdict } from "./deepseek.js";
import { startSimulator, type Simulator } from "./server.js";

let simulator: Simulator | undefined;
afterEach(async () => {
  await simulator?.close();
  simulator = undefined;
});

const toolTurn = (reasoning?: string) => ({
  role: "assistant",
  content: null,
  ...(reasoning === undefined ? {} : { reasoning_content: reasoning }),
  tool_calls: [{ id: "c1", type: "function", function: { name: "list_dir", arguments: "{}" } }],
});
const history = (reasoning?: string) => [{ role: "user", content: "list" }, toolTurn(reasoning), { role: "tool", tool_call_id: "c1", content: "a.txt" }];

async function post(payload: object) {
  const response = await fetch(`${simulator!.url}/chat/completions`, { method: "POST", body: JSON.stringify(payload), headers: { "content-type": "application/json" } });
  return { status: response.status, text: await response.text() };
}

describe("DeepSeek V4 rules", () => {
  it("refuse the retired names as models that do not exist", () => {
    for (const model of ["deepseek-chat", "deepseek-reasoner"]) expect(deepseekVerdict({ model, messages: [] })).toEqual({ refused: true, status: 400, message: "Model Not Exist" });
  });

  it("think by default on V4, not when thinking is disabled, never on other models", () => {
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: [] })).toEqual({ refused: false, thinking: true });
    expect(deepseekVerdict({ model: "deepseek-v4-pro", messages: [], thinking: { type: "enabled" } })).toEqual({ refused: false, thinking: true });
    expect(deepseekVerdict({ model: "deepseek-v4-pro", messages: [], thinking: { type: "disabled" } })).toEqual({ refused: false, thinking: false });
    expect(deepseekVerdict({ model: "sim-1", messages: history() })).toEqual({ refused: false, thinking: false });
  });

  it("refuse a thinking-mode request whose tool-calling turn lost its reasoning, and only then", () => {
    const refusal = { refused: true, status: 400, message: "The reasoning_content in the thinking mode must be passed back to the API." };
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: history() })).toEqual(refusal);
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: history("") })).toEqual(refusal);
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: history("I should list.") })).toEqual({ refused: false, thinking: true });
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: history(), thinking: { type: "disabled" } })).toEqual({ refused: false, thinking: false });
    // An assistant turn without tool calls needs no reasoning.
    expect(deepseekVerdict({ model: "deepseek-v4-flash", messages: [{ role: "assistant", content: "hi" }] })).toEqual({ refused: false, thinking: true });
  });

  it("answer over HTTP in DeepSeek's error shape, without consuming a scripted reply", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "the first reply" }] } });
    const refused = await post({ model: "deepseek-v4-flash", messages: history(), stream: true });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toEqual({
      error: { message: "The reasoning_content in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" },
    });
    const retired = await post({ model: "deepseek-chat", messages: [{ role: "user", content: "hi" }], stream: true });
    expect(JSON.parse(retired.text).error.message).toBe("Model Not Exist");
    const served = await post({ model: "deepseek-v4-flash", messages: history("I should list."), stream: true, stream_options: { include_usage: true } });
    expect(served.text).toContain("the first reply");
  });

  it("stream reasoning in thinking mode and report its tokens", async () => {
    simulator = await startSimulator({ scenario: { responses: [{ text: "done" }, { text: "plain" }] } });
    const thinking = await post({ model: "deepseek-v4-flash", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    expect(thinking.text).toContain(`"reasoning_content":"${DEFAULT_REASONING.slice(0, 24)}"`);
    expect(thinking.text).toMatch(/"completion_tokens_details":\{"reasoning_tokens":[1-9]\d*\}/);
    const off = await post({ model: "deepseek-v4-flash", messages: [{ role: "user", content: "hi" }], thinking: { type: "disabled" }, stream: true, stream_options: { include_usage: true } });
    expect(off.text).not.toContain("reasoning_content");
    expect(off.text).not.toContain("reasoning_tokens");
  });
});
