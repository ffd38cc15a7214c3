import { cacheCommand } from "./commands/cache.js";
import { costCommand } from "./commands/cost.js";
import { whatIfCommand } from "./commands/what-if.js";
import { compactCommand } from "./commands/compact.js";
import { copyCommand } from "./commands/copy.js";
import { fixtureCommand } from "./commands/fixture.js";
import { forkCommand } from "./commands/fork.js";
import { inspectCommand } from "./commands/inspect.js";
import { otelCommand } from "./commands/otel.js";
import { quarantineCommand } from "./commands/quarantine.js";
import { requestsCommand } from "./commands/requests.js";
import { recoverCommand } from "./commands/recover.js";
import { resumeCommand } from "./commands/resume.js";
import { runCommand } from "./commands/run.js";
import { sessionsCommand } from "./commands/sessions.js";
import { verifyCommand, verifyProofCommand } from "./commands/verify.js";
import { proveCommand } from "./commands/prove.js";
import { keygenCommand } from "./commands/keygen.js";
import { viewCommand } from "./commands/view.js";
import { webCommand } from "./commands/web.js";
import { CliError, EXIT, describeFailure } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { cliVersion, commandHelp, overview } from "./help.js";
import { printable } from "./printable.js";

const COMMANDS: Readonly<Record<string, (argv: readonly string[], io: CliIo) => Promise<number>>> = {
  run: runCommand,
  resume: resumeCommand,
  recover: recoverCommand,
  fork: forkCommand,
  compact: compactCommand,
  requests: requestsCommand,
  cache: cacheCommand,
  cost: costCommand,
  "what-if": whatIfCommand,
  inspect: inspectCommand,
  otel: otelCommand,
  quarantine: quarantineCommand,
  sessions: sessionsCommand,
  copy: copyCommand,
  keygen: keygenCommand,
  verify: verifyCommand,
  prove: proveCommand,
  "verify-proof": verifyProofCommand,
  fixture: fixtureCommand,
  web: webCommand,
  view: viewCommand,
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
    const help = commandHelp(asked);
    if (help === undefined) {
      io.stderr.write(`dsh: unknown command ${printable(asked)} (dsh help lists the commands)\n`);
      return EXIT.usage;
    }
    io.stdout.write(`${help}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
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
