export {
  assistantMessageEvent,
  childSessionSchema,
  deriveEventMessage,
  isSurfaceEvent,
  surfaceEventTypes,
  systemMessageEvent,
  toolResultEvent,
  userMessageEvent,
  type ChildSession,
  type SurfaceEvent,
  type SurfaceReplace,
} from "./events.js";
export type { SurfaceNode, SurfaceState } from "./surface-rule.js";
export type { OpenCalls, ToolCallRef } from "./open-calls.js";
export { advanceSurface, deriveMessagesFromEvents, emptySurface, type SurfaceView } from "./projection.js";
export { SurfaceManager, type ReplacementInput, type SurfaceRange } from "./surface-manager.js";
export { registerSurfaceEvents } from "./register.js";
export { surfaceNodeLabel } from "./node-label.js";
export { AppendList } from "./append-list.js";
