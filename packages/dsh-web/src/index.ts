export { startWebServer, type ContinueInput, type WebBackend, type WebServer } from "./server.js";
export { buildSessionView, sessionListItem, usageFacts, type RequestFacts, type SessionIdentity, type SessionViewInput, type ViewedRequest } from "./session-view.js";
export { renderPage, scriptSafeJson } from "./page.js";
export { appScript } from "./assets.js";
export { WebError, type WebErrorCode } from "./errors.js";
export type { ComposerView, ContinueLine, ImageView, NodeView, ProviderVerdictView, RequestView, RequestWire, SessionListItem, SessionView, TimelineEntry, TimelineKind, WhatIfCells, WhatIfInput, WhatIfView } from "./view-types.js";
