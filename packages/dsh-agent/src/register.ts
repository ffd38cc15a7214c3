import { registerHeaderEvents } from "dsh-header";
import { EventRegistry } from "dsh-log";
import { registerSurfaceEvents } from "dsh-surface";
import { agentEventDefinitions } from "./events.js";
import { loopAdmission } from "./loop-rule.js";
import { sessionParentEvent, sessionParentRule } from "./session-parent.js";

/** Registers the agent's event types and its loop rule. */
export function registerAgentEvents(registry: EventRegistry): EventRegistry {
  return registry.define(...agentEventDefinitions, sessionParentEvent).rule(loopAdmission).rule(sessionParentRule);
}

/**
 * A registry with everything a dsh agent session logs: surface, header and loop events and their
 * rules. Add your own types to it (`define`, `ignore`) before creating the log.
 */
export function createAgentRegistry(): EventRegistry {
  return registerAgentEvents(registerHeaderEvents(registerSurfaceEvents(new EventRegistry())));
}
