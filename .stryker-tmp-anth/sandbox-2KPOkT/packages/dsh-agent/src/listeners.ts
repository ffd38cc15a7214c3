import type { StreamChunk } from "dsh-llm";

/** How far a running tool call has come, as the tool reports it (MCP progress notifications, say). */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What a UI hears of tool calls while a turn runs: each call's start, its progress, its finish. Never model-visible, never logged. */
export type ToolEvent =
  | { readonly type: "start"; readonly callId: string; readonly name: string; readonly turn: number; readonly step: number }
  | ({ readonly type: "progress"; readonly callId: string; readonly name: string } & ToolProgress)
  | { readonly type: "finish"; readonly callId: string; readonly name: string; readonly isError: boolean };

/** The listeners of one turn. */
export interface TurnListeners {
  readonly onChunk?: ((chunk: StreamChunk) => void) | undefined;
  readonly onToolEvent?: ((event: ToolEvent) => void) | undefined;
}

/** Tells `listener` of `event`; a listener that throws is the UI's problem, never the turn's. */
export function tell(listener: ((event: ToolEvent) => void) | undefined, event: ToolEvent): void {
  try {
    listener?.(event);
  } catch {
    // A display failure must not change what runs or what is logged.
  }
}
