import type { PriceOf } from "dsh-agent";
import type { AttachmentStore } from "dsh-attachments";
import type { FixtureAgentSettings } from "dsh-fixtures";
import type { EventLog } from "dsh-log";
import { WhatIfError, whatIf, type WhatIfChange, type WhatIfReport } from "dsh-what-if";
import { CliError, EXIT } from "./cli-error.js";
import { currentAdapter } from "./providers.js";
import { DEFAULT_MAX_STEPS } from "./session-runner.js";

/** What is exact and what is modelled, as `dsh what-if` and the web app say it. */
export const HONESTY: readonly string[] = [
  "Exact: every request's bytes, rebuilt from the log and from the changed replay, and the providers' cache rules as the simulator implements them, on the recorded dispatch times.",
  "Modelled: the recorded answers and tool results are reused after the change; a real model might answer differently. Token counts are the simulator's, not the provider's tokenizer.",
];

/**
 * `whatIf` as the CLI and the web app run it: the CLI's providers and step limit, and a refusal
 * in the words of the option it concerns (`--at`, `--drop`, `--compact-at`).
 */
export async function cliWhatIf(log: EventLog, change: WhatIfChange, at: number, agent: FixtureAgentSettings, attachments: AttachmentStore, prices: PriceOf): Promise<WhatIfReport> {
  try {
    return await whatIf(log, change, { at, adapters: currentAdapter, agent, defaultMaxSteps: DEFAULT_MAX_STEPS, attachments, prices });
  } catch (error) {
    if (!(error instanceof WhatIfError)) throw error;
    if (error.code === "WHAT_IF_NO_TURN") throw new CliError(`--at ${at}: ${error.message}`, EXIT.usage);
    if (error.code !== "WHAT_IF_BAD_CHANGE") throw error;
    if (change.kind === "compact") throw new CliError("--compact-at needs --context-window N: the window the share is of (as dsh run takes it)", EXIT.usage);
    throw new CliError(`--drop ${change.kind === "drop" ? change.seq : ""}: ${error.message}`, EXIT.usage);
  }
}
