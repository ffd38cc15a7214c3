export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export type { TransactionClient } from "./commit.js";
export { NOTIFY_CHANNEL } from "./schema.js";
export { SCHEMA_VERSION } from "./schema.js";
