import { parseArgs } from "node:util";
import { AgentError, forkSeed } from "dsh-agent";
import { askOrRefuse } from "../approve.js";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { createSession, promptOf } from "../session.js";
import { signingOf } from "../signing.js";
import { TURN_OPTIONS, TURN_USAGE, continueSession } from "../session-runner.js";
import { readSessionRef, sessionRef } from "../store.js";

export const FORK_USAGE = `dsh fork LOG --at SEQ [--log NEW] ${TURN_USAGE} [PROMPT]`;

/**
 * `dsh fork`: a new session seeded with LOG's events up to SEQ (the end of a turn), with lineage in
 * its header. With PROMPT, it runs a turn there at once, overrides (e.g. `--model`) included.
 */
export async function forkCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { ...TURN_OPTIONS, at: { type: "string" }, log: { type: "string" } },
  });
  const [path, ...words] = positionals;
  if (path === undefined || values.at === undefined) throw new CliError(`usage: ${FORK_USAGE}`, EXIT.usage);
  const at = Number(values.at);
  const source = await readSessionRef(sessionRef(path, values.store, io), io);
  let seed;
  try {
    seed = forkSeed(source.log.slice(), at);
  } catch (error) {
    if (error instanceof AgentError) throw new CliError(error.message, EXIT.usage);
    throw error;
  } finally {
    await source.close();
  }
  if (values.approve === true) askOrRefuse(io);
  const fork = await createSession(values, io, { fork: { parentSessionId: source.info.sessionId, seed } }, await signingOf(values, io));
  io.stderr.write(`dsh: forked ${source.info.sessionId} at seq ${at} (${seed.length} events) into ${fork.location}\n`);
  const prompt = await promptOf(words, io);
  if (prompt === "") {
    await fork.close();
    return EXIT.ok;
  }
  return continueSession(fork, prompt, values, io);
}
