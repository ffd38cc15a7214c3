import type { LogEvent } from "dsh-log";
import type { JsonlHeader } from "dsh-log/store";

/** The `createdAt` of every fixture log, and the time of its event 0; event `seq` is one second later per seq. */
export const CANONICAL_EPOCH = Date.UTC(2026, 0, 1);

/** The time a canonical log gives event `seq`. */
export function canonicalTime(seq: number): number {
  return CANONICAL_EPOCH + seq * 1000;
}

/** What makes a log machine-specific: its session ids and the working directory it ran in. */
export interface CanonicalOptions {
  /** The fixture's name: the canonical session id (a fork's parent becomes `<name>-parent`). */
  readonly name: string;
  /** The working directory the session ran in; paths under it become relative. */
  readonly cwd?: string | undefined;
}

const PATH_CHARACTER = /[A-Za-z0-9._~-]/;

/**
 * `text` with every path under `cwd` made relative to it: `cwd/src/a.ts` becomes `src/a.ts`, `cwd`
 * itself becomes `.`. A longer name that merely starts like `cwd` (`cwd-old/x`) is left alone.
 */
export function relativizePaths(text: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === "/" || cwd === "" || !text.includes(cwd)) return text;
  let out = "";
  let from = 0;
  for (let at = text.indexOf(cwd); at !== -1; at = text.indexOf(cwd, at + 1)) {
    if (at < from) continue;
    const next = text[at + cwd.length];
    if (next === "/") {
      out += text.slice(from, at);
      from = at + cwd.length + 1;
    } else if (next === undefined || !PATH_CHARACTER.test(next)) {
      out += `${text.slice(from, at)}.`;
      from = at + cwd.length;
    }
  }
  return out + text.slice(from);
}

/** `value` with every string rewritten by `rewrite`, keys and structure kept. */
function rewriteStrings(value: unknown, rewrite: (text: string) => string): unknown {
  if (typeof value === "string") return rewrite(value);
  if (Array.isArray(value)) return value.map((item) => rewriteStrings(item, rewrite));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewriteStrings(item, rewrite)]));
  }
  return value;
}

/** An answer's data with the paths in its tool calls' arguments made relative to `cwd`; every other field as it is. */
function relativeToolArguments(data: unknown, cwd: string | undefined): unknown {
  const answer = data as { content?: readonly { type?: unknown; arguments?: unknown }[] };
  if (!Array.isArray(answer.content)) return data;
  const content = answer.content.map((block) =>
    block.type === "tool-call" && typeof block.arguments === "string" ? { ...block, arguments: relativizePaths(block.arguments, cwd) } : block,
  );
  return { ...answer, content };
}

/**
 * The canonical authored form of a session: the session id (and a fork's parent id) replaced by the
 * fixture's name wherever a string is exactly one of them, stable times, and — as the design note
 * says, and nowhere else — paths under the working directory made relative in tool-call arguments,
 * since replay only round-trips argument paths that do not depend on the cwd. Any other
 * machine-specific text (a tool that prints absolute paths) stays as it was, so a change to it shows.
 * The result is a different session, which the fixture then owns.
 */
export function canonicalSession(
  header: JsonlHeader,
  events: readonly LogEvent[],
  options: CanonicalOptions,
): { readonly header: JsonlHeader; readonly events: LogEvent[] } {
  const ids = new Map<string, string>([[header.sessionId, options.name]]);
  if (header.parent !== undefined) ids.set(header.parent.sessionId, `${options.name}-parent`);
  const rewrite = (text: string) => ids.get(text) ?? text;
  const canonicalHeader: JsonlHeader = {
    format: header.format,
    version: header.version,
    sessionId: options.name,
    createdAt: CANONICAL_EPOCH,
    ...(header.parent === undefined ? {} : { parent: { sessionId: `${options.name}-parent`, seedLength: header.parent.seedLength } }),
  };
  return {
    header: canonicalHeader,
    events: events.map((event) => {
      const data = rewriteStrings(event.data, rewrite);
      return { seq: event.seq, type: event.type, time: canonicalTime(event.seq), data: event.type === "assistant/message" ? relativeToolArguments(data, options.cwd) : data };
    }),
  };
}
