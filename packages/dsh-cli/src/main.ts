import { CACHE_USAGE, cacheCommand } from "./commands/cache.js";
import { COST_USAGE, costCommand } from "./commands/cost.js";
import { WHAT_IF_USAGE, whatIfCommand } from "./commands/what-if.js";
import { COMPACT_USAGE, compactCommand } from "./commands/compact.js";
import { COPY_USAGE, copyCommand } from "./commands/copy.js";
import { FIXTURE_USAGE, fixtureCommand } from "./commands/fixture.js";
import { FORK_USAGE, forkCommand } from "./commands/fork.js";
import { INSPECT_USAGE, inspectCommand } from "./commands/inspect.js";
import { OTEL_USAGE, otelCommand } from "./commands/otel.js";
import { QUARANTINE_USAGE, quarantineCommand } from "./commands/quarantine.js";
import { REQUESTS_USAGE, requestsCommand } from "./commands/requests.js";
import { RECOVER_USAGE, recoverCommand } from "./commands/recover.js";
import { RESUME_USAGE, resumeCommand } from "./commands/resume.js";
import { RUN_USAGE, runCommand } from "./commands/run.js";
import { SESSIONS_USAGE, sessionsCommand } from "./commands/sessions.js";
import { VERIFY_PROOF_USAGE, VERIFY_USAGE, verifyCommand, verifyProofCommand } from "./commands/verify.js";
import { PROVE_USAGE, proveCommand } from "./commands/prove.js";
import { KEYGEN_USAGE, keygenCommand } from "./commands/keygen.js";
import { VIEW_USAGE, viewCommand } from "./commands/view.js";
import { WEB_USAGE, webCommand } from "./commands/web.js";
import { CliError, EXIT, describeFailure } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { cliVersion, commandHelp, overview } from "./help.js";
import { printable } from "./printable.js";

/** Each command: how it runs, and its full usage (the flags its help describes). */
const COMMANDS: Readonly<Record<string, readonly [(argv: readonly string[], io: CliIo) => Promise<number>, string]>> = {
  run: [runCommand, RUN_USAGE],
  resume: [resumeCommand, RESUME_USAGE],
  recover: [recoverCommand, RECOVER_USAGE],
  fork: [forkCommand, FORK_USAGE],
  compact: [compactCommand, COMPACT_USAGE],
  requests: [requestsCommand, REQUESTS_USAGE],
  cache: [cacheCommand, CACHE_USAGE],
  cost: [costCommand, COST_USAGE],
  "what-if": [whatIfCommand, WHAT_IF_USAGE],
  inspect: [inspectCommand, INSPECT_USAGE],
  otel: [otelCommand, OTEL_USAGE],
  quarantine: [quarantineCommand, QUARANTINE_USAGE],
  sessions: [sessionsCommand, SESSIONS_USAGE],
  copy: [copyCommand, COPY_USAGE],
  keygen: [keygenCommand, KEYGEN_USAGE],
  verify: [verifyCommand, VERIFY_USAGE],
  prove: [proveCommand, PROVE_USAGE],
  "verify-proof": [verifyProofCommand, VERIFY_PROOF_USAGE],
  fixture: [fixtureCommand, FIXTURE_USAGE],
  web: [webCommand, WEB_USAGE],
  view: [viewCommand, VIEW_USAGE],
};

/** A flag `parseArgs` refused, in dsh's words, pointing at the command's help. */
function optionProblem(command: string, message: string): string {
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  const said = unknown === null ? message.replace(/\.$/, "") : `${command} has no option ${unknown[1]!}`;
  return `${said} (dsh ${command} --help lists its options)`;
}

/** Runs the dsh command line and returns its exit code; failures are reported as one line on stderr. */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-v" || name === "version") {
    io.stdout.write(`dsh ${cliVersion()}\n`);
    return EXIT.ok;
  }
  if (name === undefined || name === "--help" || name === "-h" || (name === "help" && rest.length === 0)) {
    (name === undefined ? io.stderr : io.stdout).write(`${overview()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  // `dsh help run`, `dsh run --help`, `dsh run -h`: the command's own help.
  const asked = name === "help" ? rest[0] : rest.includes("--help") || rest.includes("-h") ? name : undefined;
  if (asked !== undefined) {
    const help = Object.hasOwn(COMMANDS, asked) ? commandHelp(asked, COMMANDS[asked]![1]) : undefined;
    if (help === undefined) {
      io.stderr.write(`dsh: unknown command ${printable(asked)} (dsh help lists the commands)\n`);
      return EXIT.usage;
    }
    io.stdout.write(`${help}\n`);
    return EXIT.ok;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name]![0] : undefined;
  try {
    if (command === undefined) throw new CliError(`unknown command ${name} (dsh help lists the commands)`, EXIT.usage);
    return await command(rest, io);
  } catch (error) {
    const usageError = error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS");
    const { line, exitCode } = usageError ? { line: optionProblem(name, error.message), exitCode: EXIT.usage } : describeFailure(error);
    io.stderr.write(`dsh: ${printable(line)}\n`);
    return exitCode;
  }
}
