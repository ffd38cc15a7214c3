import { describe, expect, it } from "vitest";
import { encryptReasoning } from "./responses-prompt.js";
import { requiredReasoning, responsesVerdict, takesBreakpoints } from "./responses-rules.js";

const user = (text: string, mark = false) => ({ type: "message", role: "user", content: [{ type: "input_text", text, ...(mark ? { prompt_cache_breakpoint: { mode: "explicit" } } : {}) }] });
const reasoning = (id: string) => ({ type: "reasoning", id, summary: [], encrypted_content: encryptReasoning(id, "Think.") });
const call = (id: string | undefined) => ({ type: "function_call", ...(id === undefined ? {} : { id }), call_id: "c", name: "t", arguments: "{}" });
const message = (problem: string | undefined) => (problem === undefined ? { refused: false } : { refused: true, message: problem });
const verdict = (body: object) => {
  const found = responsesVerdict({ model: "gpt-5.6", ...body });
  return found.refused ? { refused: true, message: found.message } : { refused: false };
};

describe("requiredReasoning", () => {
  it("reads the reasoning id from a whole call id that follows reasoning, and nothing from any other", () => {
    expect(requiredReasoning("fc_ab12_0_rs")).toBe("rs_ab12");
    expect(requiredReasoning("fc_ab12_10_rs")).toBe("rs_ab12");
    for (const id of ["fc_ab12_0", "xfc_ab12_0_rs", "fc_ab12_0_rsx", "fc__0_rs", "fc_xyz_0_rs"]) expect(requiredReasoning(id)).toBeUndefined();
  });
});

describe("responsesVerdict", () => {
  it("asks for a call's reasoning only of a function call with an id that names one, and finds it among the items before", () => {
    expect(verdict({ input: [call("fc_ab_0_rs")] })).toEqual(message("Item 'fc_ab_0_rs' of type 'function_call' was provided without its required 'reasoning' item: 'rs_ab'."));
    expect(verdict({ input: [reasoning("rs_ab"), call("fc_ab_0_rs")] })).toEqual(message(undefined));
    expect(verdict({ input: [call("fc_ab_0_rs"), reasoning("rs_ab")] }).refused).toBe(true);
    expect(verdict({ input: [call(undefined), call("fc_ab_0")] })).toEqual(message(undefined));
    expect(verdict({ input: [{ ...user("hi"), id: "fc_ab_0_rs" }] })).toEqual(message(undefined));
  });

  it("refuses a reasoning item that no answered item follows: at the end, before input, or before more reasoning only", () => {
    const answer = { type: "message", id: "msg_ab", role: "assistant", status: "completed", content: [{ type: "output_text", text: "ok" }] };
    const output = { type: "function_call_output", call_id: "c", output: "r" };
    const lone = "Item 'rs_ab' of type 'reasoning' was provided without its required following item.";
    expect(verdict({ input: [user("hi"), reasoning("rs_ab")] })).toEqual(message(lone));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), user("more")] })).toEqual(message(lone));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), { role: "user", content: "plain" }] })).toEqual(message(lone));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), output] })).toEqual(message(lone));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), reasoning("rs_cd")] })).toEqual(message(lone));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), answer, user("more")] })).toEqual(message(undefined));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), reasoning("rs_cd"), call("fc_cd_0_rs")] })).toEqual(message(undefined));
    expect(verdict({ input: [user("hi"), reasoning("rs_ab"), { type: "web_search_call", id: "ws_1", status: "completed" }] })).toEqual(message(undefined));
  });

  it("names a reasoning item's id as given, and as 'undefined' when it has none that is text", () => {
    expect(verdict({ input: [{ type: "reasoning", id: 7, summary: [] }] }).message).toMatch(/^Item with id 'undefined' not found\./);
    expect(verdict({ input: [{ type: "reasoning", id: "rs_x", summary: [], encrypted_content: "forged" }] }).message).toBe("The encrypted content for item rs_x could not be verified.");
  });

  it("counts breakpoints in a call's output as well as in messages, and names the model that takes none", () => {
    const output = { type: "function_call_output", call_id: "c", output: [{ type: "input_text", text: "r", prompt_cache_breakpoint: { mode: "explicit" } }] };
    expect(verdict({ input: [user("a", true), user("b", true), user("c", true), output] }).message).toBe("A request may write at most 4 prompt cache breakpoints; this one has 4 explicit and the implicit one.");
    expect(verdict({ prompt_cache_options: { mode: "explicit" }, input: [user("a", true), user("b", true), user("c", true), output] })).toEqual(message(undefined));
    expect(verdict({ prompt_cache_options: { mode: "explicit" }, input: [user("a", true), user("b", true), user("c", true), user("d", true), output] }).message).toBe("A request may write at most 4 prompt cache breakpoints; this one has 5 explicit.");
    expect(responsesVerdict({ model: 5, input: [output] })).toEqual({ refused: true, status: 400, message: "prompt_cache_options and prompt_cache_breakpoint are not supported with model ''." });
    expect(takesBreakpoints("gpt-5.5")).toBe(false);
  });

  it("refuses a retention beside an options TTL, and takes either alone", () => {
    expect(verdict({ prompt_cache_options: { ttl: "24h" }, prompt_cache_retention: "24h", input: [user("a")] }).message).toBe("prompt_cache_retention cannot be combined with prompt_cache_options.ttl.");
    expect(verdict({ prompt_cache_options: { ttl: "24h" }, input: [user("a")] })).toEqual(message(undefined));
    expect(verdict({ prompt_cache_retention: "24h", input: [user("a")] })).toEqual(message(undefined));
  });

  it("thinks when the request names an effort other than none, and writes the implicit breakpoint unless told the marks are explicit", () => {
    expect(responsesVerdict({ model: "gpt-5.6", input: [user("a")], reasoning: { effort: "low" } })).toEqual({ refused: false, thinking: true, implicit: true });
    expect(responsesVerdict({ model: "gpt-5.6", input: [user("a")], reasoning: { effort: "none" } })).toEqual({ refused: false, thinking: false, implicit: true });
    expect(responsesVerdict({ model: "gpt-5.6", input: [user("a")], reasoning: { effort: 3 }, prompt_cache_options: { mode: "explicit" } })).toEqual({ refused: false, thinking: false, implicit: false });
    expect(responsesVerdict({ model: "gpt-5.6", input: [user("a")] })).toEqual({ refused: false, thinking: false, implicit: true });
  });
});
