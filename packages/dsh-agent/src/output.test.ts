import { describe, expect, it } from "vitest";
import { z } from "zod";
import { structuredOutput } from "./output.js";
import { reconstructRequests } from "./reconstruct.js";
import { baseConfig, harness } from "./test-support/harness.js";

const weather = structuredOutput("weather", z.object({ city: z.string(), celsius: z.number() }), { strict: true });

describe("structuredOutput", () => {
  it("carries the schema as JSON Schema for the call config", () => {
    expect(weather.responseFormat).toEqual({
      name: "weather",
      schema: { type: "object", properties: { city: { type: "string" }, celsius: { type: "number" } }, required: ["city", "celsius"], additionalProperties: false },
      strict: true,
    });
    expect(structuredOutput("x", z.string()).responseFormat).not.toHaveProperty("strict");
    expect(() => structuredOutput("no spaces", z.string())).toThrow(expect.objectContaining({ code: "AGENT_INVALID_OPTIONS" }));
  });

  it("reads an answer as a value, or says in one line why it is not one", () => {
    expect(weather.parse('{"city":"Oslo","celsius":-3}')).toEqual({ value: { city: "Oslo", celsius: -3 } });
    expect(weather.parse("Sunny")).toEqual({ error: expect.stringMatching(/^the answer is not JSON: /) });
    expect(weather.parse('{"city":"Oslo"}')).toEqual({ error: expect.stringMatching(/^the answer does not match weather: /) });
  });
});

describe("a structured turn", () => {
  it("logs the response format with the header and gives the final answer as a value", async () => {
    const { agent, log } = harness(() => ({ text: '{"city":"Oslo","celsius":-3}' }), { config: { ...baseConfig, responseFormat: weather.responseFormat } });
    const result = await agent.run("weather?", { output: weather });
    expect(result.output).toEqual({ value: { city: "Oslo", celsius: -3 } });
    const [rebuilt] = await reconstructRequests(log);
    expect(rebuilt!.request.config.responseFormat).toEqual(weather.responseFormat);
    const plain = await agent.run("again?");
    expect(plain).not.toHaveProperty("output");
  });
});
