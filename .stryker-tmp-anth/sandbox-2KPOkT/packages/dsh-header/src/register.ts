import type { EventRegistry } from "dsh-log";
import { headerAdmission, requestHeaderEvent } from "./snapshot.js";

function hasReason(data: unknown, reason: string): boolean {
  return typeof data === "object" && data !== null && (data as { reason?: unknown }).reason === reason;
}

/**
 * Registers the `request/header` event type, its admission rule, and the retired representations
 * (`request/header-delta` events and reason `fallback`), which the log then refuses on append and on load.
 */
export function registerHeaderEvents(registry: EventRegistry): EventRegistry {
  return registry
    .define(requestHeaderEvent)
    .rule(headerAdmission)
    .retire("request/header-delta", "a retired event type: headers are logged as full request/header snapshots")
    .retire("request/header", "reason fallback is retired: use initial, resume, change or series", (data) => hasReason(data, "fallback"));
}
