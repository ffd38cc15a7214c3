export { adapterDefaultsSchema, epochHeaderSchema, headerEquals, type AdapterDefaults, type EpochHeader } from "./header.js";
export {
  foldRequestHeader,
  headerAdmission,
  headerReasonSchema,
  requestHeaderDataSchema,
  requestHeaderEvent,
  type HeaderReason,
  type RequestHeaderSnapshot,
} from "./snapshot.js";
export { owedHeaderSnapshot, type HeaderDecision } from "./owed.js";
export { buildEpochHeader, selectionFromHeader } from "./provenance.js";
export { registerHeaderEvents } from "./register.js";
