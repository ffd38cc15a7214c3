import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { createAgentRegistry } from "dsh-agent";
import { headerAdmission, selectionFromHeader } from "dsh-header";
import type { LlmCallConfig } from "dsh-llm";
import { openJsonlLog, type EventLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { providerProfile } from "../providers.js";
import { TURN_OPTIONS, TURN_USAGE, cliAgent, runTurn, startProvider } from "../session-runner.js";

export const RESUME_USAGE = `dsh resume LOG ${TURN_USAGE} PROMPT`;

/**
 * The call config a resumed (or forked) session continues with: the selection restored from the
 * log's latest header, unless `--provider` or `--model` override it (which the first `resume`
 * snapshot then records as drift).
 */
export function continuedConfig(log: EventLog, overrides: { provider?: string | undefined; model?: string | undefined }, defaultModel: (provider: string) => string): LlmCallConfig {
  const latest = log.ruleState(headerAdmission)?.header;
  const restored = latest === undefined ? undefined : selectionFromHeader(latest);
  const provider = overrides.provider ?? restored?.provider ?? "sim";
  if (restored !== undefined && provider === restored.provider && overrides.model === undefined) return restored;
  return { provider, model: overrides.model ?? (provider === restored?.provider ? restored.model : defaultModel(provider)) };
}

/** `dsh resume`: a new loop instance over an existing log runs one more turn. */
export async function resumeCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: TURN_OPTIONS });
  const [path, ...words] = positionals;
  const prompt = words.join(" ").trim();
  if (path === undefined || prompt === "") throw new CliError(`usage: ${RESUME_USAGE}`, EXIT.usage);
  const logPath = resolve(io.cwd, path);
  const opened = await openJsonlLog(logPath, { registry: createAgentRegistry() });
  if (opened.recovered !== undefined) {
    io.stderr.write(`dsh: note: dropped an unacknowledged torn last line (line ${opened.recovered.line}) before resuming\n`);
  }
  let provider: Awaited<ReturnType<typeof startProvider>> | undefined;
  try {
    const config = continuedConfig(opened.log, values, (name) => providerProfile(name).defaultModel);
    provider = await startProvider(config.provider, values, io);
    return await runTurn(cliAgent(opened.log, provider, config, values, io), logPath, prompt, io);
  } catch (error) {
    await opened.log.close();
    throw error;
  } finally {
    await provider?.close();
  }
}

