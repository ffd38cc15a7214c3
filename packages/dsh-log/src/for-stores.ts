// The `dsh-log/store` entry: the parts a session store or a file-format tool is built from.
export { BatchingSink } from "./batching-sink.js";
export { StoreSink, firstCommit, type LineBatch, type WriterChain } from "./store-sink.js";
export { CommitQueue, staleBatchError, type PendingBatch } from "./commit-queue.js";
export { initialContent } from "./jsonl-file.js";
export {
  linkedLine,
  serializeEventLine,
  serializeHeaderLine,
  type JsonlHeader,
  type ParsedJsonl,
  type TornTail,
} from "./jsonl-format.js";
export { parseJsonl } from "./jsonl-parse.js";
export { checkSessionId, sessionInfo } from "./store.js";
export { eventLine, loadSessionLines, parseSessionLines } from "./session-lines.js";
