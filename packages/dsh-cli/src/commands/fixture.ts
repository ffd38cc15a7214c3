import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { appendFile } from "node:fs/promises";
import { checkFixture, fixturesGithub, fixturesJunit, formatFixtureReport, recordFixture, refreshFixture, type CheckedFixture, type Fixture, type ReplayOptions } from "dsh-fixtures";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { currentAdapter } from "../providers.js";
import { DEFAULT_MAX_STEPS, positiveNumber, replaySettings } from "../session-runner.js";
import { attachmentStore } from "../session.js";
import { withRecordedStepLimit } from "dsh-what-if";
import { readSessionRef, sessionRef } from "../store.js";
import { workspaceTools } from "dsh-workspace-tools";

export const FIXTURE_USAGE =
  "dsh fixture record LOG DIR [--tools recorded|real] [--workdir DIR] [--name NAME] [--max-steps N] [--context-window TOKENS] [--compact-at SHARE] [--trim-results CHARS] [--objects DIR] [--store URL]\n" +
  "  dsh fixture check DIR... [--cache-floor SHARE] [--max-write-amp RATIO] [--format text|json|junit|github]\n" +
  "  dsh fixture refresh DIR";


/**
 * What the CLI's current code offers the replay of `fixture`: its adapters' defaults and wire
 * profiles, and its workspace tools when the fixture runs them for real.
 */
function cliReplay({ manifest, workdir }: Fixture): ReplayOptions {
  return {
    modelDefaults: (provider, model) => currentAdapter(provider)?.modelDefaults?.(model) ?? {},
    wireProfile: (provider, model) => currentAdapter(provider)?.wireProfile?.(model),
    ...(manifest.tools === "real" ? { tools: () => workspaceTools(workdir!) } : {}),
  };
}

async function record(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      tools: { type: "string", default: "recorded" },
      workdir: { type: "string" },
      name: { type: "string" },
      "max-steps": { type: "string" },
      "context-window": { type: "string" },
      "compact-at": { type: "string" },
      "trim-results": { type: "string" },
      objects: { type: "string" },
      store: { type: "string" },
    },
  });
  const [reference, target] = positionals;
  if (reference === undefined || target === undefined || positionals.length > 2) throw new CliError(`usage: ${FIXTURE_USAGE}`, EXIT.usage);
  if (values.tools !== "recorded" && values.tools !== "real") throw new CliError("--tools takes recorded or real", EXIT.usage);
  if (values.tools === "real" && values.workdir === undefined) throw new CliError("--tools real runs the tools in a copy of --workdir DIR: give it", EXIT.usage);
  const session = await readSessionRef(sessionRef(reference, values.store, io), io);
  await session.close();
  const dir = resolve(io.cwd, target);
  const workdir = values.workdir === undefined ? undefined : resolve(io.cwd, values.workdir);
  const { sessionId, createdAt, parent } = session.info;
  const header = { format: "dsh-log", version: 1, sessionId, createdAt, ...(parent === undefined ? {} : { parent }) } as const;
  const events = session.log.slice();
  const manifest = await recordFixture({ header, events }, dir, {
    ...(values.name === undefined ? {} : { name: values.name }),
    cwd: workdir ?? io.cwd,
    tools: values.tools,
    ...(workdir === undefined ? {} : { workdir }),
    // The step limit is not logged: without --max-steps, the one the recorded turns show.
    agent: withRecordedStepLimit(replaySettings(values), events, DEFAULT_MAX_STEPS),
    attachments: attachmentStore(io.cwd, values.objects),
  });
  const report = await checkFixture(dir, cliReplay);
  io.stdout.write(`recorded ${dir}: ${report.requests.recorded} request(s), ${manifest.revisions.length} revision(s), tools ${manifest.tools}\n`);
  io.stdout.write(`${formatFixtureReport(report)}\n`);
  return report.ok ? EXIT.ok : EXIT.failure;
}

const FORMATS = ["text", "json", "junit", "github"] as const;

async function check(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { "cache-floor": { type: "string" }, "max-write-amp": { type: "string" }, format: { type: "string", default: "text" } },
  });
  if (positionals.length === 0) throw new CliError(`usage: ${FIXTURE_USAGE}`, EXIT.usage);
  const format = FORMATS.find((name) => name === values.format);
  if (format === undefined) throw new CliError(`--format takes ${FORMATS.join(", ")}`, EXIT.usage);
  const cacheFloor = positiveNumber(values["cache-floor"], "--cache-floor", "the least cache-read share, above 0 and at most 1", 1);
  const maxWriteAmp = positiveNumber(values["max-write-amp"], "--max-write-amp", "the most cache-write tokens per new prompt token, above 0");
  const limits = { ...(cacheFloor === undefined ? {} : { cacheFloor }), ...(maxWriteAmp === undefined ? {} : { maxWriteAmp }) };
  const checked: CheckedFixture[] = [];
  for (const dir of positionals) checked.push({ dir, report: await checkFixture(resolve(io.cwd, dir), cliReplay, limits) });
  await print(checked, format, io);
  return checked.every(({ report }) => report.ok) ? EXIT.ok : EXIT.failure;
}

/** Writes the checks in `format`; for GitHub Actions the Markdown summary goes to `GITHUB_STEP_SUMMARY` when the job gives one. */
async function print(checked: readonly CheckedFixture[], format: (typeof FORMATS)[number], io: CliIo): Promise<void> {
  const text = checked.map(({ report }) => `${formatFixtureReport(report)}\n`).join("");
  if (format === "text") io.stdout.write(text);
  else if (format === "json") io.stdout.write(`${JSON.stringify({ ok: checked.every(({ report }) => report.ok), fixtures: checked.map(({ dir, report }) => ({ dir, ...report })) })}\n`);
  else if (format === "junit") io.stdout.write(fixturesJunit(checked));
  else {
    const { annotations, summary } = fixturesGithub(checked);
    io.stdout.write(`${text}${annotations}`);
    const file = io.env.GITHUB_STEP_SUMMARY;
    if (file === undefined || file === "") io.stdout.write(summary);
    else await appendFile(resolve(io.cwd, file), summary);
  }
}

/**
 * `dsh fixture`: `record` writes a session as a fixture (and checks that it replays), `check` replays
 * each fixture keyless through the current code and prints the differences (exit 1 when there are any,
 * or when the replay's modelled cache misses `--cache-floor` or exceeds `--max-write-amp`),
 * `refresh` rewrites it from that replay.
 */
export async function fixtureCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === "record") return record(rest, io);
  if (verb === "check") return check(rest, io);
  if (verb !== "refresh" || rest.length !== 1) throw new CliError(`usage: ${FIXTURE_USAGE}`, EXIT.usage);
  const dir = resolve(io.cwd, rest[0]!);
  const report = await refreshFixture(dir, cliReplay);
  io.stdout.write(report.ok ? `${formatFixtureReport(report)}: nothing to refresh\n` : `refreshed ${dir}:\n${formatFixtureReport(report).split("\n").slice(0, -1).join("\n")}\n`);
  return EXIT.ok;
}
