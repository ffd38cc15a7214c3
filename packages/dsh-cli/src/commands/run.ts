import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { askOrRefuse } from "../approve.js";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { createSession, promptOf } from "../session.js";
import { signingOf } from "../signing.js";
import { sessionConfig } from "../selection.js";
import { DEFAULT_SYSTEM_PROMPT, TURN_OPTIONS, TURN_USAGE, cliAgent, runTurn, startProvider, turnInput } from "../session-runner.js";
import { ENGINE_OPTIONS, ENGINE_USAGE, durableStore, durableTurn } from "../durable.js";

export const RUN_USAGE = `dsh run ${TURN_USAGE} ${ENGINE_USAGE} [--log PATH] PROMPT`;

/**
 * `dsh run`: one agent turn on PROMPT, logged to a new session (of the store in effect, or the JSONL
 * file `--log`); with `--engine dbos`, as a durable workflow on the PostgreSQL store.
 */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { ...TURN_OPTIONS, ...ENGINE_OPTIONS, log: { type: "string" } } });
  const prompt = await promptOf(positionals, io);
  if (prompt === "") throw new CliError(`missing PROMPT\nusage: ${RUN_USAGE}`, EXIT.usage);
  const durable = values.engine === undefined ? undefined : durableStore(values, io);
  if (durable !== undefined && values.log !== undefined) throw new CliError("--log writes a JSONL file; --engine dbos runs on a PostgreSQL store", EXIT.usage);
  const provider = await startProvider(values.provider ?? "sim", values, io);
  try {
    // The selection is settled (bad flags and retired models refused) before the session exists.
    const sessionId = randomUUID();
    const input = await turnInput(prompt, values, io);
    const config = sessionConfig({ provider: provider.profile.name, model: values.model ?? provider.profile.defaultModel }, values, sessionId, io);
    if (durable !== undefined) return await durableTurn(durable, provider, { sessionId, input, config, systemPrompt: values.system ?? DEFAULT_SYSTEM_PROMPT }, values, io);
    if (values.approve === true) askOrRefuse(io);
    const session = await createSession(values, io, { sessionId }, await signingOf(values, io));
    try {
      return await runTurn(cliAgent(session, provider, config, values, io), session.location, input, io);
    } finally {
      await session.close();
    }
  } finally {
    await provider.close();
  }
}
