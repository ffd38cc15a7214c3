export { makePng } from "./png.js";
export { captureLog, readmeShowsExample } from "./readme.js";
export { apiMismatch } from "./api.js";
export { runUntilKilled } from "./crash-run.js";
export { streamOfReads } from "./reads.js";
export { frozenUserMessage, nextHistory, readCounter, scheduledReads, sessionSteps, bodiesInFlight, type InFlightSession, type SessionStep } from "./sessions.js";
export { coldGateway } from "./cold-gateway.js";
