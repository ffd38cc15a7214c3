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
  openJsonlLog,
  readJsonlLog,
  type CreateJsonlLogOptions,
  type JsonlLog,
  type JsonlLogOptions,
} from "./jsonl-file.js";
