import { parseArgs } from "node:util";
import { CliError, EXIT } from "../cli-error.js";
import { ENGINE_OPTIONS, durableStore, launchTurns } from "../durable.js";
import type { CliIo } from "../io.js";
import { AGENT_SETTING_OPTIONS, AGENT_SETTING_USAGE, PROVIDER_OPTIONS, PROVIDER_USAGE, startProvider } from "../session-runner.js";

/** The options of `dsh recover`: the provider's and the agent settings' (each turn keeps its own model and system prompt). */
const RECOVER_OPTIONS = { ...PROVIDER_OPTIONS, ...AGENT_SETTING_OPTIONS, ...ENGINE_OPTIONS, store: { type: "string" }, subagents: { type: "boolean" } } as const;

export const RECOVER_USAGE = `dsh recover --engine dbos [--executor ID] --store postgres://… ${PROVIDER_USAGE} ${AGENT_SETTING_USAGE} [--subagents]`;

/**
 * `dsh recover --engine dbos`: launches DBOS as the executor `--executor` (default `DBOS__VMID`, else
 * `local`), which takes up the turns that executor left pending, and waits for each to finish. Give
 * the provider, tool and MCP options the turns ran with: the agent is code, the same in every worker.
 */
export async function recoverCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: RECOVER_OPTIONS });
  if (positionals.length > 0) throw new CliError(`dsh recover takes no arguments\nusage: ${RECOVER_USAGE}`, EXIT.usage);
  if (values.engine === undefined) throw new CliError(`dsh recover needs --engine dbos\nusage: ${RECOVER_USAGE}`, EXIT.usage);
  const url = durableStore(values, io);
  const provider = await startProvider(values.provider ?? "sim", values, io);
  try {
    const turns = await launchTurns(url, provider, values, io);
    try {
      const outcomes = await turns.recover();
      if (outcomes.length === 0) io.stderr.write("dsh: no pending turns\n");
      for (const outcome of outcomes) io.stderr.write(`\ndsh: session ${outcome.sessionId} turn ${outcome.turn} ${outcome.reason} (workflow ${outcome.workflowId})\n`);
      return outcomes.every((outcome) => outcome.reason === "completed") ? EXIT.ok : EXIT.failure;
    } finally {
      await turns.shutdown();
    }
  } finally {
    await provider.close();
  }
}
