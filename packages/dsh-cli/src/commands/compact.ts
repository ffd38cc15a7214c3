import { parseArgs } from "node:util";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { sessionConfig } from "../selection.js";
import { PROVIDER_OPTIONS, PROVIDER_USAGE, cliAgent, continuedConfig, startProvider } from "../session-runner.js";
import { SIGNING_OPTIONS, SIGNING_USAGE, signingOf } from "../signing.js";
import { openSessionRef, sessionRef } from "../store.js";

export const COMPACT_USAGE = `dsh compact LOG [--keep N] [--store URL] ${SIGNING_USAGE} ${PROVIDER_USAGE}`;

/** `dsh compact`: summarize all but the most recent surface nodes of LOG now, as a logged replace. */
export async function compactCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { ...PROVIDER_OPTIONS, ...SIGNING_OPTIONS, keep: { type: "string", default: "4" }, store: { type: "string" } },
  });
  const [path] = positionals;
  if (path === undefined || positionals.length > 1) throw new CliError(`usage: ${COMPACT_USAGE}`, EXIT.usage);
  const keepRecent = Number(values.keep);
  if (!Number.isInteger(keepRecent) || keepRecent < 0) throw new CliError("--keep takes a whole number", EXIT.usage);
  const opened = await openSessionRef(sessionRef(path, values.store, io), io, await signingOf(values, io));
  let provider: Awaited<ReturnType<typeof startProvider>> | undefined;
  try {
    const config = sessionConfig(continuedConfig(opened.log, values), values, opened.info.sessionId, io);
    provider = await startProvider(config.provider, values, io);
    const agent = cliAgent(opened, provider, config, {}, io);
    const result = await agent.compact({ keepRecent, summaryModel: config });
    if (result.outcome === "completed") {
      io.stdout.write(`compacted the messages logged at seqs ${result.range.start}..${result.range.end} into one summary\n`);
      return EXIT.ok;
    }
    if (result.outcome === "skipped") {
      io.stdout.write(`nothing to compact: ${result.why}\n`);
      return EXIT.ok;
    }
    throw result.error;
  } finally {
    await opened.close();
    await provider?.close();
  }
}
