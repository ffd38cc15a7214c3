import { requestHeaderEvent } from "dsh-header";
import { assistantMessageEvent, systemMessageEvent, toolResultEvent, userMessageEvent } from "dsh-surface";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { agentEventDefinitions } from "./events.js";
import { createAgentRegistry } from "./register.js";

describe("createAgentRegistry", () => {
  const definitions = [systemMessageEvent, userMessageEvent, assistantMessageEvent, toolResultEvent, requestHeaderEvent, ...agentEventDefinitions];

  it("defines every event type a session logs", () => {
    const registry = createAgentRegistry();
    for (const definition of definitions) expect(registry.definition(definition.type)).toBe(definition);
  });

  // Admission checks each event with zod's compiled validator, which builds no copy of the data; a
  // schema zod cannot compile (a recursive one, say) would still be checked, but at several times the cost.
  it.each(definitions.map((definition) => [definition.type, definition.schema] as const))("has a schema zod compiles: %s", (_type, schema) => {
    expect(() => z.compile(schema, { strict: true })).not.toThrow();
  });
});
