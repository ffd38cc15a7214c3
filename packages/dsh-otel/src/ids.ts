import { createHash } from "node:crypto";

function hexOf(text: string, length: number): string {
  const hex = createHash("sha256").update(text).digest("hex").slice(0, length);
  // An all-zero id is invalid in OpenTelemetry; sha256 practically never yields one, but never send it.
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}

/** The trace id of the turn that starts at `seq` of session `sessionId`: 32 hex digits, the same on every export. */
export function traceIdOf(sessionId: string, seq: number): string {
  return hexOf(`dsh trace\0${sessionId}\0${seq}`, 32);
}

/** The id of the span the event at `seq` of session `sessionId` opens: 16 hex digits, the same on every export. */
export function spanIdOf(sessionId: string, seq: number): string {
  return hexOf(`dsh span\0${sessionId}\0${seq}`, 16);
}
