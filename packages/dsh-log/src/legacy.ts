import { LogError } from "./errors.js";

/**
 * Refuses the retired request-header representations: `request/header-delta` events and the
 * `fallback` header reason. They are rejected on append and on load, whatever else is registered,
 * so no Session is ever built over them.
 */
export function rejectLegacyEvent(type: string, data: unknown, line?: number): void {
  const options = line === undefined ? {} : { line };
  if (type === "request/header-delta") {
    throw new LogError(
      "LOG_LEGACY_EVENT",
      "request/header-delta is a retired event type: headers are logged as full request/header snapshots",
      options,
    );
  }
  if (type === "request/header" && typeof data === "object" && data !== null && "reason" in data) {
    if (data.reason === "fallback") {
      throw new LogError(
        "LOG_LEGACY_EVENT",
        "request/header reason fallback is retired: use initial, resume, change or series",
        options,
      );
    }
  }
}
