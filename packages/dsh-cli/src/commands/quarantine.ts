import { parseArgs } from "node:util";
import { Agent } from "dsh-agent";
import { LlmRuntime } from "dsh-llm";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { continuedConfig } from "../session-runner.js";
import { SIGNING_OPTIONS, SIGNING_USAGE, signingOf } from "../signing.js";
import { openSessionRef, sessionRef } from "../store.js";

export const QUARANTINE_USAGE = `dsh quarantine accept LOG DIGEST [--store URL] ${SIGNING_USAGE}`;

/**
 * `dsh quarantine accept`: accepts the quarantine of an unreadable image: every current surface node
 * that references DIGEST is replaced (one logged batch) by the same message with a placeholder.
 * Earlier requests still reference the image, exactly as they were sent.
 */
export async function quarantineCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { store: { type: "string" }, ...SIGNING_OPTIONS } });
  const [action, path, digest] = positionals;
  if (action !== "accept" || path === undefined || digest === undefined || positionals.length > 3) throw new CliError(`usage: ${QUARANTINE_USAGE}`, EXIT.usage);
  const opened = await openSessionRef(sessionRef(path, values.store, io), io, await signingOf(values, io));
  const { log } = opened;
  try {
    // No model is called: the runtime stays empty, and the selection only satisfies the constructor.
    const agent = new Agent({ log, runtime: new LlmRuntime(), config: continuedConfig(log, {}) });
    const replaced = await agent.acceptQuarantine(digest);
    if (replaced === 0) throw new CliError(`no message in the session references ${digest} now`, EXIT.failure);
    io.stdout.write(`quarantined ${digest}: replaced the image with a placeholder in ${replaced} message(s)\n`);
    return EXIT.ok;
  } finally {
    await opened.close();
  }
}
