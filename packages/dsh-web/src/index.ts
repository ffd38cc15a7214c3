export { startWebServer, type ContinueInput, type WebBackend, type WebServer } from "./server.js";
export { buildSessionView, sessionListItem, usageFacts, type RequestFacts, type SessionIdentity, type SessionViewInput, type ViewedRequest } from "./session-view.js";
export { PAGE_EVENTS, choosePage, timelinePages } from "./pages.js";
export { renderPage, scriptSafeJson } from "./page.js";
export { appScript } from "./assets.js";
export { WebError, type WebErrorCode } from "./errors.js";
export type { BreakLink, ComposerView, ContinueLine, ImageView, NodeView, PageChoice, ProviderVerdictView, RequestView, RequestWire, SessionListItem, SessionView, TimelineEntry, TimelineKind, TimelinePage, WhatIfCells, WhatIfInput, WhatIfView } from "./view-types.js";
