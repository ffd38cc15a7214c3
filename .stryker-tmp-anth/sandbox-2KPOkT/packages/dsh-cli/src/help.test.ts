import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { COMMAND_NAMES } from "./help.js";
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
    expect(lines.map((line) => line.trim().split(/\s+/)[0])).toEqual(COMMAND_NAMES);
    expect(help.stdout).not.toContain("--cache-policy");
    expect(await cli()).toMatchObject({ code: 2, stdout: "", stderr: help.stdout });
  });

  it("gives each command's own help, however it is asked for, and refuses an unknown one", async () => {
    for (const name of COMMAND_NAMES) {
      const asked = [await cli("help", name), await cli(name, "--help"), await cli(name, "-h")];
      for (const answer of asked) {
        expect(answer.code).toBe(0);
        expect(answer.stdout).toMatch(new RegExp(`^dsh ${name}: .+\\n\\nusage: dsh ${name}\\b`));
      }
    }
    expect((await cli("help", "run")).stdout).toContain("--cache-policy rolling-v1|system-and-last-user-v1|none");
    expect(await cli("help", "nope")).toMatchObject({ code: 2, stderr: "dsh: unknown command nope (dsh help lists the commands)\n" });
  });
});
