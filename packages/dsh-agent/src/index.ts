export { Agent, type AgentOptions, type AssembleContext, type RunOptions, type TurnResult } from "./agent.js";
export {
  SUMMARY_INSTRUCTIONS,
  compactionRange,
  measuredTokens,
  renderTranscript,
  summaryRequest,
  type CompactionOptions,
  type CompactionResult,
} from "./compaction.js";
export { forkPoints, forkSeed } from "./fork.js";
export { acceptQuarantine, nodesReferencing, quarantineProposal, trimToolResults } from "./maintenance.js";
export {
  agentEventDefinitions,
  attachmentQuarantineEvent,
  compactionEndEvent,
  compactionReasonSchema,
  compactionStartEvent,
  compactionSummaryEvent,
  createAgentRegistry,
  loggedErrorSchema,
  loopAdmission,
  registerAgentEvents,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepEndReasonSchema,
  stepStartEvent,
  turnEndEvent,
  turnEndReasonSchema,
  turnStartEvent,
  type CompactionReason,
  type LoopState,
  type StepEndReason,
  type TurnEndReason,
} from "./events.js";
export { AgentError, ToolError, type AgentErrorCode, type ToolErrorCode } from "./errors.js";
export type { PreStepContext, PreStepDecision, PreStepListener, RequestListener } from "./hooks.js";
export type { InboxItem } from "./inbox.js";
export { buildLoopRequest } from "./request.js";
export { reconstructRequests, type ReconstructOptions, type ReconstructedRequest } from "./reconstruct.js";
export { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from "./retry.js";
export {
  ToolRegistry,
  defineTool,
  toContent,
  type AgentTool,
  type ContentInput,
  type ToolContext,
  type ToolOutcome,
  type ToolOutput,
} from "./tools.js";
