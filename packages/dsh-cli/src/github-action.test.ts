import { spawnSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";

const ACTION = fileURLToPath(new URL("../../../.github/actions/dsh-fixtures/", import.meta.url));
const BIN = fileURLToPath(new URL("./bin.ts", import.meta.url));
const TSX = fileURLToPath(import.meta.resolve("tsx"));

interface Action {
  readonly inputs: Record<string, { readonly default: string }>;
  readonly runs: { readonly using: string; readonly steps: readonly { readonly shell: string; readonly env: Record<string, string>; readonly run: string }[] };
}

/** A project with dsh installed (its `node_modules/.bin/dsh`) and two fixtures: one steady, one whose prompt changed mid-session. */
async function project(): Promise<string> {
  const root = await sampleProject();
  await mkdir(join(root, "node_modules", ".bin"), { recursive: true });
  const dsh = join(root, "node_modules", ".bin", "dsh");
  await writeFile(dsh, `#!/bin/sh\nexec "${process.execPath}" --conditions=dsh-source --import "${TSX}" "${BIN}" "$@"\n`);
  await chmod(dsh, 0o755);
  const prompt = `You are careful. ${"Check every file twice before answering. ".repeat(200)}`;
  for (const [name, later] of [["steady", prompt], ["stamped", `It is noon. ${prompt}`]] as const) {
    const log = `../${name}.jsonl`;
    expect((await runCli(["run", "--provider", "sim-anthropic", "--system", prompt, "--log", log, "what is here?"], { cwd: root })).code).toBe(0);
    expect((await runCli(["resume", log, "--system", later, "and now?"], { cwd: root })).code).toBe(0);
    expect((await runCli(["fixture", "record", log, `fixtures/${name}`], { cwd: root })).code).toBe(0);
  }
  return root;
}

/** Runs the action's step in `cwd` as the runner would: its inputs (defaults filled in) into its env, bash, the action's path and a summary file. */
async function runStep(cwd: string, inputs: Record<string, string>) {
  const action = parse(await readFile(join(ACTION, "action.yml"), "utf8")) as Action;
  expect(action.runs.using).toBe("composite");
  const [step] = action.runs.steps;
  const value = (name: string) => inputs[name] ?? action.inputs[name]!.default;
  const env = Object.fromEntries(Object.entries(step!.env).map(([key, expression]) => [key, expression.replace(/\$\{\{ inputs\.([\w-]+) \}\}/g, (_match, name: string) => value(name))]));
  const summary = join(cwd, "..", `summary-${Object.keys(inputs).join("-")}.md`);
  await writeFile(summary, "");
  const { PATH, HOME } = process.env;
  const result = spawnSync(step!.shell, ["-e", "-c", step!.run], { cwd, encoding: "utf8", env: { PATH, HOME, ...env, GITHUB_ACTION_PATH: ACTION, GITHUB_STEP_SUMMARY: summary } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, summary: await readFile(summary, "utf8") };
}

describe("the dsh fixtures GitHub action", () => {
  it("checks every fixture of a project as a job would: an annotation per failure, a summary, the job failed; and passes a floor both keep", async () => {
    const root = await project();
    const failed = await runStep(root, { "cache-floor": "0.75" });
    expect(failed.code).toBe(1);
    const annotations = failed.stdout.split("\n").filter((line) => line.startsWith("::"));
    expect(annotations).toEqual([expect.stringMatching(/^::error file=fixtures\/stamped\/fixture\.json,title=dsh fixture stamped::fixture stamped: unchanged \(\d+ requests\), but cache-read share \d+\.\d%25 \(floor 75\.0%25: missed\)%0Acache break at request 4 \(turn 1 step 0\): the system prompt changed/)]);
    expect(failed.stdout).toMatch(/^fixture steady: unchanged \(\d+ requests\); cache-read share \d+\.\d% \(floor 75\.0%\)$/m);
    expect(failed.summary.split("\n").slice(0, 6)).toEqual([
      "### dsh fixtures: 1 of 2 passed",
      "",
      "| fixture | result | requests | cache-read share | directory |",
      "| --- | --- | ---: | ---: | --- |",
      expect.stringMatching(/^\| stamped \| ❌ failed \| \d+ \| \d+\.\d% \| `fixtures\/stamped` \|$/),
      expect.stringMatching(/^\| steady \| ✅ unchanged \| \d+ \| \d+\.\d% \| `fixtures\/steady` \|$/),
    ]);

    const passed = await runStep(root, { "cache-floor": "0.3", "max-write-amp": "3" });
    expect(passed.code).toBe(0);
    expect(passed.stdout.split("\n").filter((line) => line.startsWith("::"))).toEqual([]);
    expect(passed.summary).toMatch(/^### dsh fixtures: 2 of 2 passed\n/);
  });

  it("fails the job with one annotation when it finds no fixtures or no dsh", async () => {
    const root = await sampleProject();
    expect(await runStep(root, {})).toMatchObject({ code: 1, stdout: "::error title=dsh fixtures::no folder fixtures: set the action's fixtures input to the folder your fixtures are in\n" });
    await mkdir(join(root, "fixtures"));
    expect(await runStep(root, {})).toMatchObject({ code: 1, stdout: "::error title=dsh fixtures::no dsh fixture (a folder with a fixture.json) under fixtures\n" });
    await mkdir(join(root, "fixtures", "one"));
    await writeFile(join(root, "fixtures", "one", "fixture.json"), "{}");
    expect(await runStep(root, {})).toMatchObject({ code: 1, stdout: "::error title=dsh fixtures::dsh-cli is not installed in this project: add it (npm install --save-dev dsh-cli) and install before this step\n" });
  });
});
