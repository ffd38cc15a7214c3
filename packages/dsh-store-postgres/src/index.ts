export { PostgresStore, type PostgresStoreOptions, type TransactionClient } from "./postgres-store.js";
export { NOTIFY_CHANNEL } from "./schema.js";
export { SCHEMA_VERSION } from "./schema.js";
