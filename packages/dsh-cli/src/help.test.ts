import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { commandNames, usageFlags } from "./help.js";
import { COMPACT_USAGE } from "./commands/compact.js";
import { FORK_USAGE } from "./commands/fork.js";
import { RECOVER_USAGE } from "./commands/recover.js";
import { RESUME_USAGE } from "./commands/resume.js";
import { RUN_USAGE } from "./commands/run.js";
import { runCli } from "./test-support/run-cli.js";

const cli = (...argv: string[]) => runCli(argv, { cwd: tmpdir() });
const version = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;

describe("help and version", () => {
  it("prints the version", async () => {
    for (const flag of ["--version", "-v", "version"]) expect(await cli(flag)).toMatchObject({ code: 0, stdout: `dsh ${version}\n`, stderr: "" });
  });

  it("gives a short overview with one line per command, and the usage on stderr with exit 2 when no command is given", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    const lines = help.stdout.split("\n").filter((line) => /^ {2}\w/.test(line));
    expect(lines.map((line) => line.trim().split(/\s+/)[0])).toEqual(commandNames());
    expect(help.stdout).not.toContain("--cache-policy");
    expect(await cli()).toMatchObject({ code: 2, stdout: "", stderr: help.stdout });
  });

  it("gives each command's own help, however it is asked for, and refuses an unknown one", async () => {
    for (const name of commandNames()) {
      const asked = [await cli("help", name), await cli(name, "--help"), await cli(name, "-h")];
      for (const answer of asked) {
        expect(answer.code).toBe(0);
        expect(answer.stdout).toMatch(new RegExp(`^dsh ${name}: .+(\\n  .+)*\\n\\nusage: dsh ${name}\\b`));
      }
    }
    expect((await cli("help", "run")).stdout).toMatch(/^ {2}--cache-policy P {9}where cache breakpoints go: rolling-v1, system-and-last-user-v1 or none$/m);
    expect(await cli("help", "nope")).toMatchObject({ code: 2, stderr: "dsh: unknown command nope (dsh help lists the commands)\n" });
  });
});

describe("a command's help", () => {
  it("fits a terminal: no line is wider than 100 columns", async () => {
    for (const name of commandNames()) {
      const wide = (await cli(name, "--help")).stdout.split("\n").filter((line) => line.length > 100);
      expect(wide, name).toEqual([]);
    }
  });

  it("describes each option of a command with many, one per line by group, with an example and where the rest is", async () => {
    for (const [name, usage] of [["run", RUN_USAGE], ["resume", RESUME_USAGE], ["recover", RECOVER_USAGE], ["fork", FORK_USAGE], ["compact", COMPACT_USAGE]] as const) {
      const help = (await cli(name, "--help")).stdout;
      const described = [...help.matchAll(/^ {2}(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]);
      expect(new Set(described), name).toEqual(usageFlags(usage));
      expect(described, name).toHaveLength(usageFlags(usage).size);
      expect(help, name).toMatch(new RegExp(`\\nexample: dsh ${name} .+\\nevery option, with examples: docs/cli\\.md#dsh-${name}\\n`));
    }
    const run = (await cli("run", "--help")).stdout;
    expect([...run.matchAll(/^([a-z ]+):$/gm)].map((match) => match[1])).toEqual(["the provider", "thinking and caching", "the agent", "tools and input", "the session", "durable turns", "testing"]);
    expect(run).toContain("\nusage: dsh run [options] PROMPT");
  });
});

