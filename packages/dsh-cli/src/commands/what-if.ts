import { parseArgs } from "node:util";
import type { ToolSchema } from "dsh-llm";
import { z } from "zod";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { printable } from "../printable.js";
import { priceOf, readJsonOption, readPricesFile } from "../prices.js";
import { COMPACT_AT, positiveNumber, replaySettings } from "../session-runner.js";
import { attachmentStore } from "../session.js";
import { readSessionRef, sessionRef } from "../store.js";
import { pairedSteps, type ModelledRequest, type WhatIfChange, type WhatIfReport } from "dsh-what-if";
import { HONESTY, cliWhatIf } from "../what-if-run.js";
import { formatUsd } from "dsh-cost-report";

export const WHAT_IF_USAGE =
  "dsh what-if LOG --at SEQ (--system TEXT | --tools FILE | --model M | --drop SEQ | --compact-at SHARE) [--json] [--prices FILE] [--objects DIR] [--store URL] [--max-steps N] [--context-window N]";

const toolsSchema = z.array(z.strictObject({ name: z.string().min(1), description: z.string(), parameters: z.record(z.string(), z.unknown()) }));

function readTools(path: string, io: CliIo): Promise<readonly ToolSchema[]> {
  return readJsonOption("--tools", path, toolsSchema, io, "a JSON list of {name, description, parameters} tool schemas is expected; ") as Promise<readonly ToolSchema[]>;
}

const SEQ = /^(0|[1-9][0-9]*)$/;

async function changeOf(values: { system?: string | undefined; tools?: string | undefined; model?: string | undefined; drop?: string | undefined; "compact-at"?: string | undefined }, io: CliIo): Promise<WhatIfChange> {
  const given = [values.system, values.tools, values.model, values.drop, values["compact-at"]].filter((value) => value !== undefined).length;
  if (given !== 1) throw new CliError("give exactly one change: --system TEXT, --tools FILE, --model M, --drop SEQ or --compact-at SHARE", EXIT.usage);
  const share = positiveNumber(values["compact-at"], "--compact-at", COMPACT_AT, 1);
  if (share !== undefined) return { kind: "compact", share };
  if (values.drop !== undefined) {
    if (!SEQ.test(values.drop)) throw new CliError("--drop takes the seq of the message to drop (a whole number)", EXIT.usage);
    return { kind: "drop", seq: Number(values.drop) };
  }
  if (values.system !== undefined) return { kind: "system", text: values.system };
  if (values.tools !== undefined) return { kind: "tools", tools: await readTools(values.tools, io) };
  if (values.model === "") throw new CliError("--model takes a model name", EXIT.usage);
  return { kind: "model", model: values.model! };
}

function cells(request: ModelledRequest | undefined): string {
  if (request === undefined) return "-".padStart(8) + "".padStart(33) + " -".padEnd(11);
  const number = (value: number, width: number) => String(value).padStart(width);
  return `${number(request.promptTokens, 8)}${number(request.cacheReadTokens, 11)}${number(request.cacheWriteTokens, 11)}${number(request.inputTokens, 11)} ${formatUsd(request.costUsd ?? undefined).padEnd(10)}`;
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

function report(result: WhatIfReport): string {
  const head = `${"prompt".padStart(8)}${"read".padStart(11)}${"written".padStart(11)}${"uncached".padStart(11)} ${"cost".padEnd(10)}`;
  const lines = [
    `what if ${result.change} from seq ${result.fork} on${result.fork === result.at ? "" : ` (the first turn starting at or after seq ${result.at})`}:`,
    "",
    `${"step".padEnd(6)} | recorded${" ".repeat(head.length - 9)} | what if`,
    `${"".padEnd(6)} |${head} |${head} note`,
  ];
  for (const { turn, step, recorded, whatIf, broke } of pairedSteps(result)) {
    const label = `${turn}.${step}`.padEnd(6);
    if (whatIf === undefined) {
      lines.push(`${label} |${cells(recorded)} |${cells(undefined)} not sent in the what-if`.trimEnd());
      continue;
    }
    const note = broke === undefined ? "" : `break${broke.in === "both" ? " (as recorded)" : ""}: ${printable(broke.causes.join("; ") || "UNEXPLAINED")}`;
    lines.push(`${label} |${cells(recorded)} |${cells(whatIf)} ${note}`.trimEnd());
  }
  const { delta, recorded: before, whatIf: after } = result;
  const share = before.totals.costUsd === 0 ? "" : ` (${signed(Math.round((1000 * delta.costUsd) / before.totals.costUsd) / 10)}%)`;
  lines.push(
    "",
    `total: recorded ${before.totals.cacheReadTokens} read, ${before.totals.inputTokens} uncached, ${formatUsd(before.totals.costUsd)}; what if ${after.totals.cacheReadTokens} read, ${after.totals.inputTokens} uncached, ${formatUsd(after.totals.costUsd)}.`,
    `delta: cache reads ${signed(delta.cacheReadTokens)} tokens, cache writes ${signed(delta.cacheWriteTokens)}, uncached input ${signed(delta.inputTokens)}, cost ${delta.costUsd >= 0 ? "+" : "-"}${formatUsd(Math.abs(delta.costUsd))}${share}; ${result.changedRequests} of ${after.requests.length} request(s) changed.`,
    ...(before.totals.unpriced + after.totals.unpriced > 0 ? [`${after.totals.unpriced} request(s) of the what-if have no price (--prices FILE gives one); their cost is not counted.`] : []),
    ...result.notes.map((note) => `note: ${note}`),
    "",
    ...HONESTY,
  );
  return `${lines.join("\n")}\n`;
}

/** `dsh what-if`: what one change at a point of a recorded session would do to every later request's cache reads and cost. */
export async function whatIfCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      at: { type: "string" },
      system: { type: "string" },
      tools: { type: "string" },
      model: { type: "string" },
      drop: { type: "string" },
      "compact-at": { type: "string" },
      "context-window": { type: "string" },
      json: { type: "boolean", default: false },
      prices: { type: "string" },
      objects: { type: "string" },
      store: { type: "string" },
      "max-steps": { type: "string" },
    },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1) throw new CliError(`usage: ${WHAT_IF_USAGE}`, EXIT.usage);
  if (values.at === undefined || !SEQ.test(values.at)) throw new CliError("--at takes the seq of the event the change is made at (a whole number)", EXIT.usage);
  const change = await changeOf(values, io);
  const file = values.prices === undefined ? undefined : await readPricesFile(values.prices, io);
  const session = await readSessionRef(sessionRef(reference, values.store, io), io);
  await session.close();
  const agent = replaySettings({ "max-steps": values["max-steps"], "context-window": values["context-window"] });
  const result = await cliWhatIf(session.log, change, Number(values.at), agent, attachmentStore(io.cwd, values.objects), priceOf(file));
  io.stdout.write(values.json ? `${JSON.stringify(result)}\n` : report(result));
  return EXIT.ok;
}
