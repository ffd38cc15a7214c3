import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { badLogs } from "./test-support/bad-logs.js";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
let valid: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-corpus-"));
  await writeFile(join(dir, "scenario.json"), JSON.stringify({ responses: [{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "done" }] }));
  expect((await runCli(["run", "--scenario", "scenario.json", "--log", "valid.jsonl", "look"], { cwd: dir })).code).toBe(0);
  valid = await readFile(join(dir, "valid.jsonl"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const READERS = [["inspect"], ["requests", "--wire"], ["cache"], ["cost"]];

describe("the bad-input corpus", () => {
  it("covers every kind of damage it claims to", () => {
    expect(badLogs(valid)).toHaveLength(34);
  });

  it.each(Array.from({ length: 34 }, (_, i) => i))("case %i: is loaded completely or refused with one line naming its line, and a refused command leaves the file unchanged", async (index) => {
    const bad = badLogs(valid)[index];
    if (bad === undefined) throw new Error(`no case ${index}`);
    const path = join(dir, `case-${index}.jsonl`);
    await writeFile(path, bad.bytes);
    for (const command of [...READERS, ["resume", "--scenario", "scenario.json"]]) {
      const [name, ...flags] = command;
      const result = await runCli([name!, path, ...flags, ...(name === "resume" ? ["again"] : [])], { cwd: dir });
      const context = `${bad.name}: dsh ${command.join(" ")}`;
      if (bad.refusedAt === undefined) {
        expect(result.code, context).toBe(0);
        continue;
      }
      expect(result.code, `${context}\n${result.stderr}`).toBe(3);
      expect(result.stdout, context).toBe("");
      expect(result.stderr, context).toMatch(new RegExp(`^dsh: bad log: line ${bad.refusedAt}: [^\\n]+ \\[LOG_[A-Z_]+\\]\\n$`));
      expect(await readFile(path), context).toEqual(bad.bytes);
    }
  });
});
