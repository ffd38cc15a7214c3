import { EventLog, EventRegistry } from "dsh-log";
import { assistantMessageEvent, toolResultEvent, userMessageEvent } from "../events.js";
import { registerSurfaceEvents } from "../register.js";
import { SurfaceManager } from "../surface-manager.js";

export function surfaceLog(): { log: EventLog; manager: SurfaceManager } {
  let now = 1_700_000_000_000;
  const log = new EventLog({ registry: registerSurfaceEvents(new EventRegistry()), clock: () => now++ });
  return { log, manager: new SurfaceManager(log) };
}

export const user = (text: string, source = "user") =>
  userMessageEvent.input({ content: [{ type: "text", text }], source });

export const assistant = (text: string, calls: readonly { callId: string; name: string }[] = []) =>
  assistantMessageEvent.input({
    content: [
      ...(text === "" ? [] : [{ type: "text" as const, text }]),
      ...calls.map((call) => ({ type: "tool-call" as const, ...call, arguments: "{}" })),
    ],
    source: "model",
  });

export const toolResult = (callId: string, name: string, text: string, isError = false) =>
  toolResultEvent.input({ callId, toolName: name, content: [{ type: "text", text }], isError, source: "tool" });
