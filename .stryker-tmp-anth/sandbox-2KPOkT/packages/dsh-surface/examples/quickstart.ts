import { EventLog, EventRegistry } from "dsh-log";
import { SurfaceManager, deriveMessagesFromEvents, registerSurfaceEvents, userMessageEvent } from "dsh-surface";

export async function main(): Promise<boolean> {
  const log = new EventLog({ registry: registerSurfaceEvents(new EventRegistry()) });
  const surface = new SurfaceManager(log);

  await log.append(surface.systemPromptInput("You are terse.")!);
  await log.append(userMessageEvent.input({ content: [{ type: "text", text: "Hi" }], source: "user" }));
  console.log(surface.deriveMessages().map((message) => message.role)); // ["system", "user"]

  // A prompt change is a node-0 replace; compaction replaces a range of nodes (seqs).
  await log.append(surface.systemPromptInput("You are verbose.")!);
  await surface.replaceGeneration(
    { start: 1, end: 1 },
    userMessageEvent.input({ content: [{ type: "text", text: "(summary)" }], source: "compaction" }),
  );
  console.log(surface.generation, surface.nodeSeqs()); // 2 [2, 3]

  // Anyone folding the same public projection over the log gets equal messages.
  return JSON.stringify(deriveMessagesFromEvents(log.slice())) === JSON.stringify(surface.deriveMessages());
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
