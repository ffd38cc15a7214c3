import { parseArgs } from "node:util";
import { requestHeaderEvent } from "dsh-header";
import type { LogEvent } from "dsh-log";
import { isSurfaceEvent, replaceOf, type SurfaceEvent } from "dsh-surface";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { readSession } from "../session.js";

export const INSPECT_USAGE = "dsh inspect LOG";

const clip = (text: string, length = 80) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

function describeSurface(event: SurfaceEvent): string {
  const replace = replaceOf(event);
  const replaced = replace === undefined ? "" : ` (replaces ${replace.start}..${replace.end}, generation ${replace.generation})`;
  switch (event.type) {
    case "system/message":
      return `system prompt${replaced}: ${JSON.stringify(clip(event.data.content, 60))}`;
    case "user/message":
      return `user [${event.data.source}]${replaced}: ${JSON.stringify(clip(event.data.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("")))}`;
    case "assistant/message": {
      const parts = event.data.content.map((block) =>
        block.type === "tool-call" ? `→ ${block.name} ${clip(block.arguments, 60)}` : block.type === "reasoning" ? `(thinking ${block.text.length} chars)` : JSON.stringify(clip(block.text)),
      );
      return `assistant${replaced}: ${parts.join(" ") || "(empty)"}`;
    }
    case "tool/result": {
      const text = event.data.content.map((b) => (b.type === "text" ? b.text : "[image]")).join("");
      return `tool ${event.data.toolName}${event.data.isError ? " ERROR" : ""}${replaced}: ${JSON.stringify(clip(text, 60))}`;
    }
  }
}

function describe(event: LogEvent): { indent: number; text: string } | undefined {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case "turn/start":
      return { indent: 0, text: `turn ${String(data.turn)}` };
    case "turn/end":
      return { indent: 0, text: `turn ${String(data.turn)} ended: ${String(data.reason)}` };
    case "step/start":
      return { indent: 1, text: `step ${String(data.step)}${data.startsRequestSeries === true ? " (starts a request series)" : ""}` };
    case "step/end": {
      const usage = data.usage as { inputTokens: number; outputTokens: number; cacheReadTokens: number } | undefined;
      const used = usage === undefined ? "" : ` — in ${usage.inputTokens}, out ${usage.outputTokens}, cache read ${usage.cacheReadTokens}`;
      const error = data.error as { code: string } | undefined;
      return { indent: 2, text: `step end: ${String(data.reason)}${data.finishReason === undefined ? "" : ` (${String(data.finishReason)})`}${error ? ` ${error.code}` : ""}${used}` };
    }
    case "request/dispatch":
      return { indent: 2, text: "request dispatched" };
    case "request/retry": {
      const error = data.error as { code: string; message: string };
      return { indent: 2, text: `retry ${String(data.attempt)} after ${String(data.delayMs)} ms: ${error.code} ${clip(error.message, 60)}` };
    }
    default:
      break;
  }
  if (requestHeaderEvent.is(event)) {
    const { reason, startsSeries, header } = event.data;
    const defaults = Object.keys(header.adapterDefaults ?? {});
    const tools = (header.tools ?? []).map((tool) => tool.name).join(", ") || "none";
    const config = Object.entries(header.config)
      .map(([key, value]) => `${key}=${JSON.stringify(value)}${defaults.includes(key) ? " (adapter default)" : ""}`)
      .join(" ");
    return { indent: 2, text: `header ${reason}${startsSeries === true ? " + series" : ""}: ${config}; tools: ${tools}` };
  }
  if (isSurfaceEvent(event)) return { indent: 2, text: describeSurface(event) };
  return { indent: 2, text: `${event.type}` };
}

/** `dsh inspect`: a readable timeline of turns, steps, headers and tool calls. */
export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: {} });
  const [path] = positionals;
  if (path === undefined || positionals.length > 1) throw new CliError(`usage: ${INSPECT_USAGE}`, EXIT.usage);
  const { header, log } = await readSession(io.cwd, path, io.stderr);
  const lines = [
    `session ${header.sessionId}, created ${new Date(header.createdAt).toISOString()}, ${log.length} events` +
      (header.parent === undefined ? "" : `, forked from ${header.parent.sessionId} at seq ${header.parent.seedLength}`),
  ];
  for (const event of log) {
    const line = describe(event);
    if (line !== undefined) lines.push(`${String(event.seq).padStart(5)} ${"  ".repeat(line.indent)}${line.text}`);
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.ok;
}
