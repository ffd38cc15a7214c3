import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAgentRegistry } from "dsh-agent";
import { openJsonlLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { promptOf } from "../session.js";
import { TURN_OPTIONS, TURN_USAGE, continueSession } from "../session-runner.js";

export const RESUME_USAGE = `dsh resume LOG ${TURN_USAGE} PROMPT`;

/** `dsh resume`: a new loop instance over an existing log runs one more turn. */
export async function resumeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: TURN_OPTIONS });
  const [path, ...words] = positionals;
  const prompt = await promptOf(words, io);
  if (path === undefined || prompt === "") throw new CliError(`usage: ${RESUME_USAGE}`, EXIT.usage);
  const logPath = resolve(io.cwd, path);
  const opened = await openJsonlLog(logPath, { registry: createAgentRegistry() });
  if (opened.recovered !== undefined) {
    io.stderr.write(`dsh: note: dropped an unacknowledged torn last line (line ${opened.recovered.line}) before resuming\n`);
  }
  return continueSession(opened.log, opened.header.sessionId, logPath, prompt, values, io);
}

