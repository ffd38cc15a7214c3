export { NOTIFY_CHANNEL, PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { SCHEMA_VERSION } from "./schema.js";
