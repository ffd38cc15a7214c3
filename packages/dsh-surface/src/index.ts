export {
  assistantMessageEvent,
  deriveEventMessage,
  isSurfaceEvent,
  replaceOf,
  surfaceEventDefinitions,
  surfaceReplaceSchema,
  systemMessageEvent,
  toolResultEvent,
  userMessageEvent,
  type SurfaceEvent,
  type SurfaceReplace,
} from "./events.js";
export { foldSurface, surfaceAdmission, type SurfaceNode, type SurfaceState } from "./surface-rule.js";
export { deriveMessagesFromEvents } from "./derive.js";
export { SurfaceManager, type ReplacementInput } from "./surface-manager.js";
export { registerSurfaceEvents } from "./register.js";
export type { AppendList } from "./append-list.js";
