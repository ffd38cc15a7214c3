export { storeBackend, type StoreBackendOptions } from "./backend.js";
export { buildPage, type PageBuilder, type PageRequest } from "./page-jobs.js";
export { PagePool, type OpenPageStore, type PagePoolOptions } from "./page-pool.js";
export { SessionCache, imageRef, listItem, readForWeb, requestWire, sessionPage, type StorePageOptions } from "./store-pages.js";
export { composerOf, inlineImage, measureSession, sessionView, wirePreview, type ImageSource, type MeasuredSession } from "./measured-view.js";
export { requestsWithImages, type RequestWithImages } from "./viewed-requests.js";
export { sessionHtml } from "./static-page.js";
