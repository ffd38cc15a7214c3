export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
export { SCHEMA_VERSION } from "./schema.js";
