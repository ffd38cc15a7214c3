export { LEGACY_WIRES, wireApiOf, wireBody, wireSha256, type LoggedRequest, type WireApi } from "./wire.js";
export { WireError, type WireErrorCode } from "./errors.js";
