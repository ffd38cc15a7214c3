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
  type ReadLinesOptions,
  type SessionInfo,
  type SessionStore,
  type SessionSummary,
  type StoredLine,
  type StoredLines,
  type StoredSession,
} from "./store.js";
export { SessionChain, chainGenesis, lineDigest, nextLink, type ChainHead } from "./chain.js";
export { headSignatureProblem, keyIdOf, parseSignedHead, publicKeyFromPem, signHead, signingKeyFromPem, type SignedHead } from "./signed-head.js";
export { FileWitness, readWitnessFile, type HeadSigning, type HeadWitness } from "./witness.js";
export { describeVerifyReport, verifyLines, type VerifyReport, type WitnessCheck } from "./verify.js";
export { readJsonlLines } from "./jsonl-lines.js";
export { streamSessionEvents } from "./session-stream.js";
export { streamJsonlLog, type JsonlStreamEnd } from "./jsonl-stream.js";
export { JsonlStore } from "./jsonl-store.js";
export { brokenLineage, lineageProblem } from "./lineage.js";
