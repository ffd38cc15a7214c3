import type { SessionStore } from "dsh-log";
import { SqliteStore } from "dsh-store-sqlite";

/** Opens the SQLite store at a file (for the crash writer's process). */
export default async function open(location: string): Promise<SessionStore> {
  return new SqliteStore(location);
}
