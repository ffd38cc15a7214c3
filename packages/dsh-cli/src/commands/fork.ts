import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { AgentError, createAgentRegistry, forkSeed } from "dsh-agent";
import { createJsonlLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { promptOf, readSession } from "../session.js";
import { TURN_OPTIONS, TURN_USAGE, continueSession } from "../session-runner.js";

export const FORK_USAGE = `dsh fork LOG --at SEQ --log NEW ${TURN_USAGE} [PROMPT]`;

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
  if (path === undefined || values.at === undefined || values.log === undefined) throw new CliError(`usage: ${FORK_USAGE}`, EXIT.usage);
  const at = Number(values.at);
  const { header, log: source } = await readSession(io.cwd, path, io.stderr);
  let seed;
  try {
    seed = forkSeed(source.slice(), at);
  } catch (error) {
    if (error instanceof AgentError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  const newPath = resolve(io.cwd, values.log);
  const fork = await createJsonlLog(newPath, { registry: createAgentRegistry(), fork: { parentSessionId: header.sessionId, seed } });
  io.stderr.write(`dsh: forked ${header.sessionId} at seq ${at} (${seed.length} events) into ${newPath}\n`);
  const prompt = await promptOf(words, io);
  if (prompt === "") {
    await fork.log.close();
    return EXIT.ok;
  }
  return continueSession(fork.log, fork.header.sessionId, newPath, prompt, values, io);
}
