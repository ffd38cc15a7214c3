import type { SessionStore } from "dsh-log";
import { PostgresStore } from "dsh-store-postgres";

/** Connects to the PostgreSQL store at a URL (for the crash writer's process). */
export default async function open(location: string): Promise<SessionStore> {
  return PostgresStore.connect(location);
}
