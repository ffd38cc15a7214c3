import { createHash } from "node:crypto";

/** An id OpenTelemetry accepts: an all-zero one (invalid) gets a last digit of 1. sha256 practically never yields one. */
export function validId(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

function hexOf(text: string, length: number): string {
  return validId(createHash("sha256").update(text).digest("hex").slice(0, length));
}

/** The trace id of the turn that starts at `seq` of session `sessionId`: 32 hex digits, the same on every export. */
export function traceIdOf(sessionId: string, seq: number): string {
  return hexOf(`dsh trace\0${sessionId}\0${seq}`, 32);
}

/** The id of the span the event at `seq` of session `sessionId` opens: 16 hex digits, the same on every export. */
export function spanIdOf(sessionId: string, seq: number): string {
  return hexOf(`dsh span\0${sessionId}\0${seq}`, 16);
}
