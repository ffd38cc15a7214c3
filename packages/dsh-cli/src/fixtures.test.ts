import { cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";

const PROJECT_FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

describe("the project's own fixtures", async () => {
  const names = (await readdir(PROJECT_FIXTURES, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);

  it("are the three sessions the issue names", () => {
    expect(names.sort()).toEqual(["fork-with-image", "resume-model-switch", "tool-session"]);
  });

  it.each(names)("%s replays keyless through the current loop, prompt and tools to the same requests", async (name) => {
    const { code, stdout, stderr } = await runCli(["fixture", "check", join(PROJECT_FIXTURES, name)], { cwd: tmpdir() });
    expect(stderr).toBe("");
    expect(stdout).toMatch(new RegExp(`^fixture ${name}: unchanged \\(\\d+ requests\\)\\n$`));
    expect(code).toBe(0);
  });

  it("hold what they are named for: trims and compactions, a model switch on resume, a fork seed with an image", async () => {
    const log = (name: string) => readFile(join(PROJECT_FIXTURES, name, "session.jsonl"), "utf8");
    const tool = await log("tool-session");
    expect(tool).toMatch(/"type":"compaction\/summary"/);
    expect(tool).toMatch(/"type":"tool\/result".*"replaces"/);
    expect(tool).toMatch(/"reason":"series"/);
    expect(await log("resume-model-switch")).toMatch(/"reason":"resume","header":\{"config":\{"provider":"sim","model":"sim-2"/);
    const fork = await log("fork-with-image");
    expect(fork.split("\n")[0]).toMatch(/"parent":\{"sessionId":"fork-with-image-parent","seedLength":\d+\}/);
    expect(fork).toMatch(/"type":"image"/);
  });
});

describe("dsh fixture on a recorded session", () => {
  it("fails a cache floor a mid-session prompt change misses, naming the change and its seq; passes one it meets", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "floored");
    const prompt = `You are careful. ${"Check every file twice before answering. ".repeat(200)}`;
    expect((await runCli(["run", "--provider", "sim-anthropic", "--system", prompt, "--log", "../s.jsonl", "what is here?"], { cwd: project })).code).toBe(0);
    expect((await runCli(["resume", "../s.jsonl", "--system", `It is noon. ${prompt}`, "and now?"], { cwd: project })).code).toBe(0);
    expect((await runCli(["fixture", "record", "../s.jsonl", dir], { cwd: project })).code).toBe(0);
    const missed = await runCli(["fixture", "check", dir, "--cache-floor", "0.99", "--max-write-amp", "10"], { cwd: project });
    expect(missed.code).toBe(1);
    const share = /cache-read share (\d+\.\d)% \(floor 99\.0%: missed\)/.exec(missed.stdout)?.[1] ?? "";
    expect(Number(share)).toBeGreaterThan(30);
    expect(missed.stdout).toMatch(/^fixture floored: unchanged \(\d+ requests\), but cache-read share \d+\.\d% \(floor 99\.0%: missed\), write amplification \d\.\d\d \(at most 10\.00\)\n/);
    expect(missed.stdout).toMatch(/^cache break at request 4 \(turn 1 step 0\): the system prompt changed: the message logged at seq 2 \(seq \d+\); its bytes differ from character \d+: "It is noon\. You are careful\. Check every file tw" \(was "You are careful\. Check every file twice before a"\)$/m);
    const met = await runCli(["fixture", "check", dir, "--cache-floor", String(Number(share) / 100 - 0.01)], { cwd: project });
    expect(met).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^fixture floored: unchanged \\(\\d+ requests\\); cache-read share ${share.replace(".", "\\.")}% \\(floor \\d+\\.\\d%\\)\n$`)) });
    const json = await runCli(["fixture", "check", dir, dir, "--cache-floor", "0.99", "--format", "json"], { cwd: project });
    const parsed = JSON.parse(json.stdout) as { ok: boolean; fixtures: { dir: string; name: string; ok: boolean; cache: { share: number; breaks: unknown[] } }[] };
    expect(json.code).toBe(1);
    expect(parsed.ok).toBe(false);
    expect(parsed.fixtures.map((fixture) => [fixture.dir, fixture.name, fixture.ok, fixture.cache.breaks.length])).toEqual([
      [dir, "floored", false, 1],
      [dir, "floored", false, 1],
    ]);
    expect((100 * parsed.fixtures[0]!.cache.share).toFixed(1)).toBe(share);
    const junit = await runCli(["fixture", "check", dir, "--cache-floor", "0.99", "--format", "junit"], { cwd: project });
    expect(junit.code).toBe(1);
    expect(junit.stdout).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="dsh fixtures" tests="1" failures="1">\n/);
    expect(junit.stdout).toContain(`<testcase classname="${dir}" name="floored">`);
    expect(await runCli(["fixture", "check", dir, "--format", "html"], { cwd: project })).toMatchObject({ code: 2, stderr: "dsh: --format takes text, json, junit, github\n" });
    expect(await runCli(["fixture", "check"], { cwd: project })).toMatchObject({ code: 2, stderr: expect.stringContaining("usage: dsh fixture record") });
    expect(await runCli(["fixture", "check", dir, "--cache-floor", "1.5"], { cwd: project })).toMatchObject({ code: 2, stderr: "dsh: --cache-floor takes the least cache-read share, above 0 and at most 1\n" });
    expect(await runCli(["fixture", "check", dir, "--max-write-amp", "none"], { cwd: project })).toMatchObject({ code: 2, stderr: "dsh: --max-write-amp takes the most cache-write tokens per new prompt token, above 0\n" });
  });

  it("names the changed requests and the cache consequence after a prompt edit; refresh makes the check pass; no key anywhere", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "fixture");
    expect((await runCli(["run", "--log", "../s.jsonl", "what is here?"], { cwd: project })).code).toBe(0);
    expect((await runCli(["resume", "../s.jsonl", "--system", "You are dsh. Be terse.", "and now?"], { cwd: project })).code).toBe(0);
    const recorded = await runCli(["fixture", "record", "../s.jsonl", dir, "--tools", "real", "--workdir", "."], { cwd: project });
    expect(recorded.stderr).toBe("");
    expect(recorded.stdout).toMatch(/^recorded .*fixture: 6 request\(s\), 2 revision\(s\), tools real\nfixture fixture: unchanged \(6 requests\)\n$/);
    expect(recorded.code).toBe(0);

    // The resume's prompt edited back to the first one: its requests change, and the break at the resume is gone.
    await writeFile(join(dir, "prompts", "r2.txt"), await readFile(join(dir, "prompts", "r1.txt"), "utf8"));
    const check = await runCli(["fixture", "check", dir], { cwd: project });
    expect(check.code).toBe(1);
    const lines = check.stdout.split("\n");
    expect(lines[0]).toMatch(/^fixture fixture: 3 of 6 requests differ, 1 cache break gone, 2 sidecar differences, \d+ log events differ$/);
    expect(lines).toContain("request 4 (turn 1 step 0, dispatched at seq 24):");
    expect(lines).toContain("    - You are dsh. Be terse.");
    expect(lines).toContain("requests 5-6: the same change");
    expect(lines).toContain("cache break gone at request 4 (was: node 0 (system prompt) was replaced)");
    expect(lines).toContain("sidecar: the fixture pins 2 revision(s), the replay uses 1");

    const refresh = await runCli(["fixture", "refresh", dir], { cwd: project });
    expect(refresh.code).toBe(0);
    expect(refresh.stdout).toMatch(/^refreshed .*\nfixture fixture: 3 of 6 requests differ/);
    expect(await readdir(join(dir, "prompts"))).toEqual(["r1.txt"]);
    const again = await runCli(["fixture", "check", dir], { cwd: project });
    expect(again).toMatchObject({ code: 0, stdout: "fixture fixture: unchanged (6 requests)\n" });
  });

  it("records a session of more steps than the default limit without --max-steps: the limit is read off its turns", async () => {
    const project = await sampleProject();
    const dir = join(project, "..", "long-fixture");
    const steps = Array.from({ length: 20 }, (_, i) => ({ text: `Step ${i}.`, toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }));
    await writeFile(join(project, "..", "long.json"), JSON.stringify({ responses: [...steps, { text: "Done." }] }));
    expect((await runCli(["run", "--scenario", "../long.json", "--max-steps", "40", "--log", "../long.jsonl", "look"], { cwd: project })).code).toBe(0);
    const recorded = await runCli(["fixture", "record", "../long.jsonl", dir], { cwd: project });
    expect(recorded).toMatchObject({ code: 0, stderr: "", stdout: expect.stringMatching(/\nfixture long-fixture: unchanged \(21 requests\)\n$/) });
    expect(JSON.parse(await readFile(join(dir, "fixture.json"), "utf8"))).toMatchObject({ agent: { maxSteps: 21 } });
  });

  it("shows a change to the CLI's own tools against a real-tools fixture, and refuses bad input with one line", async () => {
    const copy = join(await mkdtemp(join(tmpdir(), "dsh-fx-")), "tool-session");
    await cp(join(PROJECT_FIXTURES, "tool-session"), copy, { recursive: true });
    const tools = JSON.parse(await readFile(join(copy, "tools", "r1.json"), "utf8")) as { description: string }[];
    tools[0]!.description = "An older description";
    await writeFile(join(copy, "tools", "r1.json"), JSON.stringify(tools, null, 2));
    const check = await runCli(["fixture", "check", copy], { cwd: tmpdir() });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("sidecar: tools/r1.json differs from the tools the replay offered: tool list_dir: description changed");

    expect(await runCli(["fixture", "check", tmpdir()], { cwd: tmpdir() })).toMatchObject({ code: 3, stderr: expect.stringMatching(/^dsh: fixture: .*fixture\.json is missing \[FIXTURE_INVALID\]\n$/) });
    expect(await runCli(["fixture", "record", "nope.jsonl", copy], { cwd: tmpdir() })).toMatchObject({ code: 3 });
    expect(await runCli(["fixture", "frobnicate"], { cwd: tmpdir() })).toMatchObject({ code: 2 });
    expect(await runCli(["run", "--trim-results", "40", "hi"], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: "dsh: --trim-results relieves pressure on a context window: give --context-window too\n" });
    expect(await runCli(["fixture", "record", join(copy, "session.jsonl"), copy, "--tools", "real"], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: expect.stringMatching(/--workdir/) });
    expect(await runCli(["fixture", "record", join(copy, "session.jsonl"), copy], { cwd: tmpdir() })).toMatchObject({ code: 2, stderr: expect.stringMatching(/FIXTURE_EXISTS/) });
  });
});
