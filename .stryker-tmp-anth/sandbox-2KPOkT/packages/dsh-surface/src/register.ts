import type { EventRegistry } from "dsh-log";
import { surfaceEventDefinitions } from "./events.js";
import { surfaceAdmission } from "./surface-rule.js";

/** Registers the four surface event types and the surface admission rule. */
export function registerSurfaceEvents(registry: EventRegistry): EventRegistry {
  return registry.define(...surfaceEventDefinitions).rule(surfaceAdmission);
}
