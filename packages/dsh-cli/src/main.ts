import { CliError, EXIT, describeFailure } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { cliVersion, commandHelp, overview } from "./help.js";
import { printable } from "./printable.js";

/** How a command runs, and its full usage (the flags its help describes). */
type Command = readonly [(argv: readonly string[], io: CliIo) => Promise<number>, string];

/** Each command, loaded when it is asked for: `dsh --version` or one command loads nothing else. */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  run: async () => import("./commands/run.js").then((m) => [m.runCommand, m.RUN_USAGE]),
  resume: async () => import("./commands/resume.js").then((m) => [m.resumeCommand, m.RESUME_USAGE]),
  recover: async () => import("./commands/recover.js").then((m) => [m.recoverCommand, m.RECOVER_USAGE]),
  fork: async () => import("./commands/fork.js").then((m) => [m.forkCommand, m.FORK_USAGE]),
  compact: async () => import("./commands/compact.js").then((m) => [m.compactCommand, m.COMPACT_USAGE]),
  requests: async () => import("./commands/requests.js").then((m) => [m.requestsCommand, m.REQUESTS_USAGE]),
  cache: async () => import("./commands/cache.js").then((m) => [m.cacheCommand, m.CACHE_USAGE]),
  cost: async () => import("./commands/cost.js").then((m) => [m.costCommand, m.COST_USAGE]),
  "what-if": async () => import("./commands/what-if.js").then((m) => [m.whatIfCommand, m.WHAT_IF_USAGE]),
  inspect: async () => import("./commands/inspect.js").then((m) => [m.inspectCommand, m.INSPECT_USAGE]),
  otel: async () => import("./commands/otel.js").then((m) => [m.otelCommand, m.OTEL_USAGE]),
  quarantine: async () => import("./commands/quarantine.js").then((m) => [m.quarantineCommand, m.QUARANTINE_USAGE]),
  sessions: async () => import("./commands/sessions.js").then((m) => [m.sessionsCommand, m.SESSIONS_USAGE]),
  copy: async () => import("./commands/copy.js").then((m) => [m.copyCommand, m.COPY_USAGE]),
  keygen: async () => import("./commands/keygen.js").then((m) => [m.keygenCommand, m.KEYGEN_USAGE]),
  verify: async () => import("./commands/verify.js").then((m) => [m.verifyCommand, m.VERIFY_USAGE]),
  prove: async () => import("./commands/prove.js").then((m) => [m.proveCommand, m.PROVE_USAGE]),
  "verify-proof": async () => import("./commands/verify.js").then((m) => [m.verifyProofCommand, m.VERIFY_PROOF_USAGE]),
  fixture: async () => import("./commands/fixture.js").then((m) => [m.fixtureCommand, m.FIXTURE_USAGE]),
  web: async () => import("./commands/web.js").then((m) => [m.webCommand, m.WEB_USAGE]),
  view: async () => import("./commands/view.js").then((m) => [m.viewCommand, m.VIEW_USAGE]),
};

/** Loads the command `name` (its module and what it imports), or `undefined` for a name dsh does not know. */
export function loadCommand(name: string): Promise<Command> | undefined {
  return Object.hasOwn(COMMANDS, name) ? COMMANDS[name]!() : undefined;
}

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
    const command = loadCommand(asked);
    const help = command === undefined ? undefined : commandHelp(asked, (await command)[1]);
    if (help === undefined) {
      io.stderr.write(`dsh: unknown command ${printable(asked)} (dsh help lists the commands)\n`);
      return EXIT.usage;
    }
    io.stdout.write(`${help}\n`);
    return EXIT.ok;
  }
  const loading = loadCommand(name);
  try {
    if (loading === undefined) throw new CliError(`unknown command ${name} (dsh help lists the commands)`, EXIT.usage);
    const [command] = await loading;
    return await command(rest, io);
  } catch (error) {
    const usageError = error instanceof TypeError && (error as NodeJS.ErrnoException).code?.startsWith("ERR_PARSE_ARGS");
    const { line, exitCode } = usageError ? { line: optionProblem(name, error.message), exitCode: EXIT.usage } : describeFailure(error);
    io.stderr.write(`dsh: ${printable(line)}\n`);
    return exitCode;
  }
}
