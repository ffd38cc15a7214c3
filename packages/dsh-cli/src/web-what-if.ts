import type { AttachmentStore } from "dsh-attachments";
import type { SessionStore } from "dsh-log";
import { WebError, type WhatIfCells, type WhatIfInput, type WhatIfView } from "dsh-web";
import { WhatIfError, pairedSteps, type ModelledRequest, type ModelledSession, type WhatIfReport } from "dsh-what-if";
import { CliError } from "./cli-error.js";
import { priceOf } from "./prices.js";
import { replaySettings } from "./session-runner.js";
import { readForWeb } from "dsh-web-store";
import { HONESTY, cliWhatIf } from "./what-if-run.js";

function cells(request: ModelledRequest | ModelledSession["totals"] | undefined): WhatIfCells | null {
  if (request === undefined) return null;
  const { promptTokens, cacheReadTokens, cacheWriteTokens, inputTokens, costUsd } = request;
  return { promptTokens, cacheReadTokens, cacheWriteTokens, inputTokens, costUsd };
}

/** A what-if report as the web app shows it: rows paired by step, breaks as notes. */
export function whatIfView(report: WhatIfReport): WhatIfView {
  const rows = pairedSteps(report).map(({ turn, step, recorded, whatIf, broke }) => {
    const note = whatIf === undefined ? "not sent in the what-if" : broke === undefined ? "" : `break${broke.in === "both" ? " (as recorded)" : ""}: ${broke.causes.join("; ") || "unexplained"}`;
    return { turn, step, recorded: cells(recorded), whatIf: cells(whatIf), note };
  });
  const { cacheReadTokens, inputTokens, costUsd } = report.delta;
  return {
    change: report.change,
    fork: report.fork,
    rows,
    totals: { recorded: cells(report.recorded.totals)!, whatIf: cells(report.whatIf.totals)! },
    delta: { cacheReadTokens, inputTokens, costUsd },
    honesty: HONESTY,
  };
}

/** The web backend's what-if over a store's session, with the catalogs' prices, the CLI's default agent settings and the step limit the recording shows. */
export async function storeWhatIf(store: SessionStore, id: string, input: WhatIfInput, attachments: AttachmentStore): Promise<WhatIfView> {
  const { log } = await readForWeb(store, id);
  try {
    const change = "system" in input ? { kind: "system" as const, text: input.system } : { kind: "model" as const, model: input.model };
    return whatIfView(await cliWhatIf(log, change, input.at, replaySettings({}), attachments, priceOf(undefined)));
  } catch (error) {
    if (error instanceof CliError || error instanceof WhatIfError) throw new WebError("WEB_BAD_REQUEST", error.message);
    throw error;
  }
}
