export { Agent, type AgentOptions, type RunOptions } from "./agent.js";
export type { ApprovalDecision, ApprovalRequest, ToolApprover } from "./approval.js";
export type { ToolEvent, ToolProgress } from "./listeners.js";
export { structuredOutput, type StructuredOutput } from "./output.js";
export { openAgent, readSession, type AgentSession, type OpenAgentOptions, type StoredSessionRef } from "./open.js";
export { continuedSelection } from "./continue.js";
export { compareRequests, type CompareOptions, type RequestComparison, type RequestDifference } from "./compare.js";
export type { AssembleContext } from "./loop.js";
export type { TurnResult, TurnUsage } from "./turn.js";
export { costTotals, stepCosts, type CostTotals, type PriceOf, type StepCost } from "./cost.js";
export type { CompactionForecast, CompactionForecaster, CompactionForecastInput, CompactionOptions, CompactionResult, TrimOptions } from "./compaction.js";
export { summaryRequest } from "./summary.js";
export { forkPoints, forkSeed } from "./fork.js";
export {
  attachmentQuarantineEvent,
  compactionEndEvent,
  compactionForecastEvent,
  compactionStartEvent,
  compactionSummaryEvent,
  requestDispatchEvent,
  requestRetryEvent,
  stepEndEvent,
  stepRejectEvent,
  stepStartEvent,
  toolApprovalEvent,
  toolIntentEvent,
  turnEndEvent,
  turnStartEvent,
  type CompactionPlan,
  type CompactionReason,
  type StepEndReason,
  type TurnEndReason,
} from "./events.js";
export { createAgentRegistry } from "./register.js";
export { advanceTurn, driveTurn, turnToStart, type TurnPosition } from "./durable.js";
export type { DurableTurnOptions, UncertainCall, UncertainCallDecision } from "./durable-loop.js";
export { nextAction, type NextAction, type StepReceipt } from "./durable-receipt.js";
export type { AnswerFacts } from "./answer.js";
export { AgentError, ToolError, type AgentErrorCode, type ToolErrorCode } from "./errors.js";
export type { PreStepContext, PreStepDecision, PreStepListener, RequestListener } from "./hooks.js";
export type { InboxItem } from "./inbox.js";
export { buildLoopRequest, type LoopRequestOptions, emptyRequestFold, foldRequestEvent, type Dispatch, type RequestFold } from "./request.js";
export { reconstructRequestStream, reconstructRequests, type ReconstructOptions, type ReconstructedRequest } from "./reconstruct.js";
export { requestBreak } from "./request-break.js";
export { describeEvent, previewText, type EventDescription, type EventKind } from "./describe.js";
export type { RetryPolicy } from "./retry.js";
export { ToolRegistry, defineTool, toolErrorOutcome, type AgentTool, type ContentInput, type ToolContext, type ToolOutcome, type ToolOutput } from "./tools.js";
export { chainHeadAt, subagentSessionId, subagentTool, type SubagentOptions } from "./subagent.js";
export { isSubagentTool, type SubagentTool } from "./tools.js";
export { subagentTurns, type SubagentTurn } from "./subagent-turns.js";
export { sessionParentEvent, type SessionParent } from "./session-parent.js";
export { childLinks, describeTreeSession, linkProblems, verifyChildren, verifySessionTree, verifyStoreSessions, type ChildLink, type StoreSessionCheck, type TreePlace, type TreeReport, type TreeSession } from "./session-tree.js";
export { reconstructTree, walkSessionTree, type SessionRequests } from "./tree-requests.js";
export { listSessionTree, sessionTreeOrder, subagentParentOf, type ListedSession } from "./session-list.js";
