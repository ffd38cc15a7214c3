export { DurableTurns, TURN_WORKFLOW, lineLogger, turnWorkflowId, type DurableTurnsOptions, type StartedTurn, type TurnAgent, type TurnOptions, type TurnOutcome } from "./durable-turns.js";
export type { AgentContext } from "./subagents.js";
export { TurnTransactions } from "./transactions.js";
export { DurableError, type DurableErrorCode } from "./errors.js";
