export { LogError, type LogErrorCode } from "./errors.js";
export type { EventInput, LogEvent } from "./event.js";
export { EventRegistry, defineEvent, type AdmissionRule, type EventDefinition } from "./registry.js";
export { EventLog, type EventLogOptions, type LogListener, type LogSink } from "./log.js";
export {
  serializeEventLine,
  serializeHeaderLine,
  type JsonlHeader,
  type ParsedJsonl,
  type TornTail,
} from "./jsonl-format.js";
export { parseJsonl } from "./jsonl-parse.js";
export {
  createJsonlLog,
  initialContent,
  openJsonlLog,
  readJsonlLog,
  type CreateJsonlLogOptions,
  type JsonlLog,
  type JsonlLogOptions,
} from "./jsonl-file.js";
export { BatchingSink } from "./batching-sink.js";
export { CommitQueue, staleBatchError, type PendingBatch } from "./commit-queue.js";
export {
  checkSessionId,
  copySession,
  sessionInfo,
  type CreateSessionOptions,
  type FollowOptions,
  type SessionInfo,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from "./store.js";
export { JsonlStore } from "./jsonl-store.js";
export { eventLine, loadSessionLines, parseSessionLines } from "./session-lines.js";
