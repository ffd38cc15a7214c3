import { parseArgs } from "node:util";
import { describeEvent } from "dsh-agent";
import type { LogEvent, SessionInfo } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { followableStore, readSessionRef, sessionRef } from "../store.js";
import { streamSessionRef } from "../streamed.js";

export const INSPECT_USAGE = "dsh inspect LOG [--follow] [--store URL]";

function eventLine(event: LogEvent): string {
  const line = describeEvent(event);
  return `${String(event.seq).padStart(5)} ${"  ".repeat(line.depth)}${printable(line.text)}`;
}

/** The first line: the session, when it was created, its events, and the session it was forked from. */
function headline(info: SessionInfo, events: number): string {
  return `session ${info.sessionId}, created ${new Date(info.createdAt).toISOString()}, ${events} events` + (info.parent === undefined ? "" : `, forked from ${info.parent.sessionId} at seq ${info.parent.seedLength}`);
}

/** `dsh inspect`: a readable timeline of turns, steps, headers and tool calls; with `--follow`, then every event another process appends. */
export async function inspectCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { follow: { type: "boolean", default: false }, store: { type: "string" } } });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${INSPECT_USAGE}`, EXIT.usage);
  const ref = sessionRef(reference, values.store, io);
  if (values.follow !== true) {
    // Streamed twice, a batch at a time: first checked whole (a bad log prints nothing but the refusal), then printed.
    const checked = await streamSessionRef(ref, io, () => undefined);
    io.stdout.write(`${headline(checked.info, checked.events)}\n`);
    await streamSessionRef(ref, io, (batch) => io.stdout.write(`${batch.map(eventLine).join("\n")}\n`), { quiet: true });
    return EXIT.ok;
  }
  const session = await readSessionRef(ref, io);
  await session.close();
  const { info, log } = session;
  io.stdout.write(`${[headline(info, log.length), ...log.slice().map(eventLine)].join("\n")}\n`);
  const store = await followableStore(ref, io);
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  io.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    for await (const batch of store.follow(info.sessionId, { fromSeq: log.length, signal: stop.signal })) {
      // Followed events are admitted like loaded ones: the same checks as on append.
      log.load(batch);
      io.stdout.write(`${batch.map(eventLine).join("\n")}\n`);
    }
  } finally {
    io.signal?.removeEventListener("abort", onAbort);
    await store.close();
  }
  return io.signal?.aborted === true ? EXIT.interrupted : EXIT.ok;
}
