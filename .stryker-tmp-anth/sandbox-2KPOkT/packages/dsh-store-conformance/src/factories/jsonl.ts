import { JsonlStore, type SessionStore } from "dsh-log";

/** Opens the JSONL store at a directory (for the crash writer's process). */
export default async function open(location: string): Promise<SessionStore> {
  return new JsonlStore(location);
}
