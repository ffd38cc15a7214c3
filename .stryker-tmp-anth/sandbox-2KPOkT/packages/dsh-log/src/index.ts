export { LogError, type LogErrorCode } from "./errors.js";
export type { EventInput, LogEvent } from "./event.js";
export { EventRegistry, defineEvent, type AdmissionRule, type EventDefinition } from "./registry.js";
export { EventLog, type EventLogOptions, type LogListener, type LogSink } from "./log.js";
export {
  createJsonlLog,
  openJsonlLog,
  readJsonlLog,
  type CreateJsonlLogOptions,
  type JsonlLog,
  type JsonlLogOptions,
} from "./jsonl-file.js";
export {
  copySession,
  type CreateSessionOptions,
  type FollowOptions,
  type SessionInfo,
  type SessionStore,
  type SessionSummary,
  type StoredSession,
} from "./store.js";
export { JsonlStore } from "./jsonl-store.js";
