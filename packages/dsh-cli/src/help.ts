import { createRequire } from "node:module";

/** The help text (`help.json`, beside `src/` and `dist/`, read on first use): each command's summary, and for the commands with many options a short usage, an example and the options by group. */
let text: HelpText | undefined;
interface HelpText {
  readonly commands: Readonly<Record<string, { readonly summary: string; readonly usage?: string; readonly example?: string }>>;
  readonly groups: Readonly<Record<string, Readonly<Record<string, string>>>>;
}
const helpText = (): HelpText => (text ??= createRequire(import.meta.url)("../help.json") as HelpText);

/** The flags `usage` names, each as `--name`. */
export function usageFlags(usage: string): Set<string> {
  return new Set(usage.match(/--[a-z][a-z0-9-]*/g) ?? []);
}

/** `text` in lines of at most `width` characters broken between words, the lines after the first indented by `indent`. */
function wrap(text: string, width: number, indent = ""): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  return [...lines, line].map((part, index) => (index === 0 ? part : `${indent}${part}`));
}

/** The described options of `usage`'s flags, group by group, one per line, within 100 columns. */
function optionLines(usage: string): string[] {
  const flags = usageFlags(usage);
  const lines: string[] = [];
  for (const [group, options] of Object.entries(helpText().groups)) {
    const shown = Object.entries(options).filter(([option]) => flags.has(option.split(" ")[0]!));
    if (shown.length === 0) continue;
    lines.push(`${group}:`);
    for (const [option, text] of shown) lines.push(...wrap(text, 73).map((part, index) => `  ${(index === 0 ? option : "").padEnd(25)}${part}`));
    lines.push("");
  }
  return lines;
}

const WHERE = `LOG is a JSONL file, a session id of the store in effect (--store URL, else DSH_STORE, else the
directory .dsh/sessions), or STORE#ID; a store is a directory, sqlite:PATH or a postgres:// URL.

exit codes: 0 ok, 1 failed, 2 usage, 3 log missing or corrupt, 4 attachment missing or corrupt,
5 provider unreachable or failing, 6 not verified (a broken or unchained log, a refused proof),
130 interrupted`;

/** The names of the commands, in the order the overview lists them. */
export const commandNames = (): readonly string[] => Object.keys(helpText().commands);

/** The overview `dsh --help` prints: one line per command. */
export function overview(): string {
  const width = Math.max(...commandNames().map((name) => name.length));
  const lines = commandNames().map((name) => `  ${name.padEnd(width)}  ${helpText().commands[name]!.summary}`);
  return `usage: dsh COMMAND [options]   (dsh help COMMAND, or dsh COMMAND --help, for its options)\n\ncommands:\n${lines.join("\n")}\n\n${WHERE}`;
}

/**
 * The help of command `name` whose full usage is `usage`: its summary and usage; for a command with
 * many options a short usage, each option described by group, and an example.
 */
export function commandHelp(name: string, usage: string): string {
  const { summary, usage: short, example } = helpText().commands[name]!;
  const head = [...wrap(`dsh ${name}: ${summary}`, 98, "  "), "", ...(short ?? usage).split("\n").flatMap((line, index) => wrap(line.trim(), 91, "         ").map((part, at) => (at === 0 ? `${index === 0 ? "usage: " : "       "}${part}` : part))), ""];
  const more = `every option, with examples: docs/cli.md#dsh-${name}`;
  return [...head, ...(short === undefined ? [] : [...optionLines(usage), `example: ${example ?? ""}`]), more, "", WHERE].join("\n");
}

/** This CLI's version, from its package.json (beside `src/` and `dist/` alike). */
export function cliVersion(): string {
  return (createRequire(import.meta.url)("../package.json") as { version: string }).version;
}
