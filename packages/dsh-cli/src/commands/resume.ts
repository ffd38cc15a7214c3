import { parseArgs } from "node:util";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { promptOf } from "../session.js";
import { signingOf } from "../signing.js";
import { TURN_OPTIONS, TURN_USAGE, continueSession } from "../session-runner.js";
import { openSessionRef, sessionRef } from "../store.js";

export const RESUME_USAGE = `dsh resume LOG ${TURN_USAGE} PROMPT`;

/** `dsh resume`: a new loop instance over an existing session (a JSONL file or a session of a store) runs one more turn. */
export async function resumeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: TURN_OPTIONS });
  const [reference, ...words] = positionals;
  const prompt = await promptOf(words, io);
  if (reference === undefined || prompt === "") throw new CliError(`usage: ${RESUME_USAGE}`, EXIT.usage);
  return continueSession(await openSessionRef(sessionRef(reference, values.store, io), io, await signingOf(values, io)), prompt, values, io);
}
