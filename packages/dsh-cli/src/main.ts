import { CACHE_USAGE, cacheCommand } from "./commands/cache.js";
import { COMPACT_USAGE, compactCommand } from "./commands/compact.js";
import { COPY_USAGE, copyCommand } from "./commands/copy.js";
import { FIXTURE_USAGE, fixtureCommand } from "./commands/fixture.js";
import { FORK_USAGE, forkCommand } from "./commands/fork.js";
import { INSPECT_USAGE, inspectCommand } from "./commands/inspect.js";
import { QUARANTINE_USAGE, quarantineCommand } from "./commands/quarantine.js";
import { REQUESTS_USAGE, requestsCommand } from "./commands/requests.js";
import { RESUME_USAGE, resumeCommand } from "./commands/resume.js";
import { RUN_USAGE, runCommand } from "./commands/run.js";
import { SESSIONS_USAGE, sessionsCommand } from "./commands/sessions.js";
import { VIEW_USAGE, viewCommand } from "./commands/view.js";
import { WEB_USAGE, webCommand } from "./commands/web.js";
import { CliError, EXIT, describeFailure } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { printable } from "./printable.js";

const COMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  run: runCommand,
  resume: resumeCommand,
  fork: forkCommand,
  compact: compactCommand,
  requests: requestsCommand,
  cache: cacheCommand,
  inspect: inspectCommand,
  quarantine: quarantineCommand,
  sessions: sessionsCommand,
  copy: copyCommand,
  fixture: fixtureCommand,
  web: webCommand,
  view: viewCommand,
};

export const USAGE = `usage:
  ${RUN_USAGE}
  ${RESUME_USAGE}
  ${FORK_USAGE}
  ${COMPACT_USAGE}
  ${REQUESTS_USAGE}
  ${CACHE_USAGE}
  ${INSPECT_USAGE}
  ${QUARANTINE_USAGE}
  ${SESSIONS_USAGE}
  ${COPY_USAGE}
  ${FIXTURE_USAGE}
  ${WEB_USAGE}
  ${VIEW_USAGE}

LOG is a JSONL file, a session id of the store in effect (--store URL, else DSH_STORE, else the
directory .dsh/sessions), or STORE#ID; a store is a directory, sqlite:PATH or a postgres:// URL.

exit codes: 0 ok, 1 failed, 2 usage, 3 log missing or corrupt, 4 attachment missing or corrupt,
5 provider unreachable or failing, 130 interrupted`;

/** Runs the dsh command line and returns its exit code; failures are reported as one line on stderr. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    io.stdout.write(`${USAGE}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = COMMANDS[name];
  try {
    if (command === undefined) throw new CliError(`unknown command ${name} (dsh help lists the commands)`, EXIT.usage);
    return await command(rest, io);
  } catch (error) {
    const usageError = error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS");
    const { line, exitCode } = usageError ? { line: error.message, exitCode: EXIT.usage } : describeFailure(error);
    io.stderr.write(`dsh: ${printable(line)}\n`);
    return exitCode;
  }
}
