import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAgentRegistry } from "dsh-agent";
import { createJsonlLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { defaultLogPath, promptOf } from "../session.js";
import { sessionConfig } from "../selection.js";
import { TURN_OPTIONS, TURN_USAGE, cliAgent, runTurn, startProvider, turnInput } from "../session-runner.js";

export const RUN_USAGE = `dsh run ${TURN_USAGE} [--log PATH] PROMPT`;

/** `dsh run`: one agent turn on PROMPT, logged to a new JSONL file. */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: { ...TURN_OPTIONS, log: { type: "string" } } });
  const prompt = await promptOf(positionals, io);
  if (prompt === "") throw new CliError(`missing PROMPT\nusage: ${RUN_USAGE}`, EXIT.usage);
  const provider = await startProvider(values.provider ?? "sim", values, io);
  try {
    const logPath = values.log === undefined ? await defaultLogPath(io.cwd, new Date()) : resolve(io.cwd, values.log);
    // The selection is settled (bad flags and retired models refused) before the log file exists.
    const sessionId = randomUUID();
    const input = await turnInput(prompt, values, io);
    const config = sessionConfig({ provider: provider.profile.name, model: values.model ?? provider.profile.defaultModel }, values, sessionId, io);
    const { log } = await createJsonlLog(logPath, { registry: createAgentRegistry(), sessionId });
    return await runTurn(cliAgent(log, provider, config, values, io), logPath, input, io);
  } finally {
    await provider.close();
  }
}
