import { createRequire } from "node:module";
import { CACHE_USAGE } from "./commands/cache.js";
import { COMPACT_USAGE } from "./commands/compact.js";
import { COST_USAGE } from "./commands/cost.js";
import { WHAT_IF_USAGE } from "./commands/what-if.js";
import { COPY_USAGE } from "./commands/copy.js";
import { FIXTURE_USAGE } from "./commands/fixture.js";
import { FORK_USAGE } from "./commands/fork.js";
import { INSPECT_USAGE } from "./commands/inspect.js";
import { OTEL_USAGE } from "./commands/otel.js";
import { QUARANTINE_USAGE } from "./commands/quarantine.js";
import { REQUESTS_USAGE } from "./commands/requests.js";
import { RECOVER_USAGE } from "./commands/recover.js";
import { RESUME_USAGE } from "./commands/resume.js";
import { RUN_USAGE } from "./commands/run.js";
import { SESSIONS_USAGE } from "./commands/sessions.js";
import { VERIFY_PROOF_USAGE, VERIFY_USAGE } from "./commands/verify.js";
import { PROVE_USAGE } from "./commands/prove.js";
import { KEYGEN_USAGE } from "./commands/keygen.js";
import { VIEW_USAGE } from "./commands/view.js";
import { WEB_USAGE } from "./commands/web.js";

/** Each command: what it does in one line, and its usage. */
const COMMAND_HELP: Readonly<Record<string, { readonly summary: string; readonly usage: string }>> = {
  run: { summary: "start a session and run one turn on a prompt", usage: RUN_USAGE },
  resume: { summary: "run one more turn on a session, keeping its prompt and model unless told", usage: RESUME_USAGE },
  recover: { summary: "finish the durable turns (--engine dbos) a crashed worker left pending", usage: RECOVER_USAGE },
  fork: { summary: "copy a session up to the end of a turn into a new one, and maybe run a turn there", usage: FORK_USAGE },
  compact: { summary: "summarize the older part of a session's messages now", usage: COMPACT_USAGE },
  requests: { summary: "print every request rebuilt from a log, or its exact HTTP body", usage: REQUESTS_USAGE },
  cache: { summary: "show per request how much the provider's prompt cache could read, and why it broke", usage: CACHE_USAGE },
  cost: { summary: "show the tokens and cost of each step, turn and session (or of each logged event), cache reads and writes apart", usage: COST_USAGE },
  "what-if": { summary: "replay a session with one change (prompt, tools, model) and compare cache reads and cost", usage: WHAT_IF_USAGE },
  inspect: { summary: "print a log's events one per line", usage: INSPECT_USAGE },
  otel: { summary: "send a session's spans (requests, tool calls, turns) to an OpenTelemetry receiver", usage: OTEL_USAGE },
  quarantine: { summary: "replace an unreadable image in a session by a placeholder", usage: QUARANTINE_USAGE },
  sessions: { summary: "list the sessions of a store", usage: SESSIONS_USAGE },
  copy: { summary: "copy a session to another store or file, byte for byte", usage: COPY_USAGE },
  keygen: { summary: "make a key pair for signing session heads (FILE and FILE.pub)", usage: KEYGEN_USAGE },
  verify: { summary: "check a session's hash chain, and its signed heads against a witness", usage: VERIFY_USAGE },
  prove: { summary: "write a proof of one request that can be checked without the session", usage: PROVE_USAGE },
  "verify-proof": { summary: "check a proof written by dsh prove, with the writer's public key", usage: VERIFY_PROOF_USAGE },
  fixture: { summary: "record, check (with cache floors, for CI) and refresh snapshot fixtures", usage: FIXTURE_USAGE },
  web: { summary: "browse a store's sessions in the browser", usage: WEB_USAGE },
  view: { summary: "write one session as a self-contained HTML page", usage: VIEW_USAGE },
};

const WHERE = `LOG is a JSONL file, a session id of the store in effect (--store URL, else DSH_STORE, else the
directory .dsh/sessions), or STORE#ID; a store is a directory, sqlite:PATH or a postgres:// URL.

exit codes: 0 ok, 1 failed, 2 usage, 3 log missing or corrupt, 4 attachment missing or corrupt,
5 provider unreachable or failing, 6 not verified (a broken or unchained log, a refused proof),
130 interrupted`;

/** The names of the commands, in the order the overview lists them. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMAND_HELP);

/** The overview `dsh --help` prints: one line per command. */
export function overview(): string {
  const width = Math.max(...COMMAND_NAMES.map((name) => name.length));
  const lines = COMMAND_NAMES.map((name) => `  ${name.padEnd(width)}  ${COMMAND_HELP[name]!.summary}`);
  return `usage: dsh COMMAND [options]   (dsh help COMMAND, or dsh COMMAND --help, for its options)\n\ncommands:\n${lines.join("\n")}\n\n${WHERE}`;
}

/** The help of one command (its summary and full usage), or `undefined` for a name that is no command. */
export function commandHelp(name: string): string | undefined {
  const help = Object.hasOwn(COMMAND_HELP, name) ? COMMAND_HELP[name] : undefined;
  return help === undefined ? undefined : `dsh ${name}: ${help.summary}\n\nusage: ${help.usage}\n\n${WHERE}`;
}

/** This CLI's version, from its package.json (beside `src/` and `dist/` alike). */
export function cliVersion(): string {
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}
