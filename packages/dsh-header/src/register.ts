import type { EventRegistry } from "dsh-log";
import { headerAdmission, requestHeaderEvent } from "./snapshot.js";

/** Registers the `request/header` event type and its admission rule. */
export function registerHeaderEvents(registry: EventRegistry): EventRegistry {
  return registry.define(requestHeaderEvent).rule(headerAdmission);
}
