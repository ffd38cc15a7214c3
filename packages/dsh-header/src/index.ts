export { adapterDefaultsSchema, epochHeaderSchema, headerEquals, type AdapterDefaults, type EpochHeader } from "./header.js";
export {
  foldHeader,
  foldRequestHeader,
  headerReasonSchema,
  requestHeaderEvent,
  type HeaderReason,
  type RequestHeaderSnapshot,
} from "./snapshot.js";
export { owedHeaderEvent, owedHeaderSnapshot, type HeaderDecision, type HeaderStep } from "./owed.js";
export { buildEpochHeader, selectionFromHeader } from "./provenance.js";
export { registerHeaderEvents } from "./register.js";
export { describeHeaderChanges, headerCauses, type HeaderCause } from "./changes.js";
