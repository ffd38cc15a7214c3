import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { askOrRefuse } from "../approve.js";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { createSession, promptOf } from "../session.js";
import { signingOf } from "../signing.js";
import { sessionConfig } from "../selection.js";
import { TURN_OPTIONS, TURN_USAGE, cliAgent, runTurn, startProvider, turnInput } from "../session-runner.js";

export const RUN_USAGE = `dsh run ${TURN_USAGE} [--log PATH] PROMPT`;

/** `dsh run`: one agent turn on PROMPT, logged to a new session (of the store in effect, or the JSONL file `--log`). */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { ...TURN_OPTIONS, log: { type: "string" } } });
  const prompt = await promptOf(positionals, io);
  if (prompt === "") throw new CliError(`missing PROMPT\nusage: ${RUN_USAGE}`, EXIT.usage);
  const provider = await startProvider(values.provider ?? "sim", values, io);
  try {
    // The selection is settled (bad flags and retired models refused) before the session exists.
    const sessionId = randomUUID();
    const input = await turnInput(prompt, values, io);
    const config = sessionConfig({ provider: provider.profile.name, model: values.model ?? provider.profile.defaultModel }, values, sessionId, io);
    if (values.approve === true) askOrRefuse(io);
    const session = await createSession(values, io, { sessionId }, await signingOf(values, io));
    try {
      return await runTurn(cliAgent(session.log, provider, config, values, io), session.location, input, io);
    } finally {
      await session.close();
    }
  } finally {
    await provider.close();
  }
}
