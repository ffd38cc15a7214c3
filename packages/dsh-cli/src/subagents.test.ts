import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-subagents-cli-"));
  await writeFile(join(dir, "notes.txt"), "Buy milk.\nCall the plumber.\n");
  return () => rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(argv, { cwd: dir });
const sessionsDir = () => join(dir, ".dsh", "sessions");

describe("dsh run --subagents", () => {
  it("on the embedded simulator, delegates the work to a subagent whose session is linked, shown and verified with the parent's", async () => {
    const run = await cli("run", "--subagents", "What is in this folder?");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/A subagent looked around for me\. It reported: I listed the directory and read one file \(\d+ characters\)\. It begins: Buy milk\./);
    const parent = /dsh: log: .*\/([^/]+)\.jsonl\n/.exec(run.stderr)![1]!;
    const files = (await readdir(sessionsDir())).filter((name) => name.endsWith(".jsonl"));
    expect(files).toHaveLength(2);
    const child = files.map((name) => name.replace(/\.jsonl$/, "")).find((id) => id !== parent)!;
    expect(run.stderr).toContain(`← delegate: 1 line(s) (subagent session ${child})`);
    // The store's sessions show the tree: the child under its parent, naming the call.
    const listed = (await cli("sessions")).stdout.split("\n");
    expect(listed[1]).toMatch(new RegExp(`^${parent} `));
    expect(listed[2]).toMatch(new RegExp(`^  ${child} .* subagent: call \\S+ of ${parent}$`));
    const [, row] = (await cli("sessions", "--json")).stdout.trim().split("\n").map((line) => JSON.parse(line) as { sessionId: string; depth: number; subagentOf?: { sessionId: string } });
    expect(row).toMatchObject({ sessionId: child, depth: 1, subagentOf: { sessionId: parent } });
    // The parent's timeline names the child; the child's names the parent.
    expect((await cli("inspect", parent)).stdout).toMatch(new RegExp(`tool delegate: "I listed the directory.*" \\(subagent session ${child}, \\d+ events\\)`));
    expect((await cli("inspect", child)).stdout).toMatch(new RegExp(`^\\s+0 subagent session of ${parent}: call \\S+ \\(delegate\\) of the answer at seq \\d+$`, "m"));
    // The subagent's cache report says what its first request could read of the parent's cache.
    // Its file tools are listed first, as the parent's are, so it can: as much as the simulator read.
    const [firstRow] = (await cli("cache", child, "--json")).stdout.trim().split("\n").map((line) => JSON.parse(line) as { cacheReadTokens: number; reportedPromptTokens: number });
    expect(firstRow!.cacheReadTokens).toBeGreaterThan(0);
    const reported = `${((100 * firstRow!.cacheReadTokens) / firstRow!.reportedPromptTokens).toFixed(1)}%`;
    expect((await cli("cache", child)).stdout).toMatch(new RegExp(`\\nsubagent of ${parent}: its first request \\(seq \\d+\\) can read ${reported.replace(".", "\\.")} of its prompt from its parent's cache, under the provider's cache rules\\.\\n$`));
    expect((await cli("cache", parent)).stdout).not.toContain("subagent of");
    // Its cost adds the subagent's up with its own.
    const cost = (await cli("cost", parent)).stdout;
    expect(cost).toMatch(new RegExp(`^subagent ${child} \\(result at seq \\d+ of ${parent}\\): 3 step\\(s\\), \\d+ prompt tokens \\(\\d+ read from the cache\\), \\d+ output tokens; \\$[0-9.]+ \\(\\+3 step\\(s\\) without a price\\)$`, "m"));
    expect(cost).toMatch(/^with its 1 subagent session\(s\): \d+ prompt tokens .*\(\+5 step\(s\) without a price\)$/m);
    const json = JSON.parse((await cli("cost", parent, "--json")).stdout) as { total: { inputTokens: number; costUsd: number }; subagents: { sessionId: string; total: { inputTokens: number; costUsd: number } }[]; treeTotal: { inputTokens: number; costUsd: number } };
    expect(json.subagents.map((session) => session.sessionId)).toEqual([child]);
    expect(json.treeTotal.inputTokens).toBe(json.total.inputTokens + json.subagents[0]!.total.inputTokens);
    expect(json.treeTotal.costUsd).toBeCloseTo(json.total.costUsd + json.subagents[0]!.total.costUsd, 12);
    expect(json.subagents[0]!.total.inputTokens).toBeGreaterThan(0);
    const verified = await cli("verify", parent);
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout).toMatch(new RegExp(`^intact: session ${parent}, .*\\nsubagent of ${parent} \\(its result at seq \\d+\\): intact: session ${child}, \\d+ events, chain head [0-9a-f]{64}\\n$`));
    // The child edited after it returned: the parent no longer verifies, and the line names both.
    const path = join(sessionsDir(), `${child}.jsonl`);
    await writeFile(path, (await readFile(path, "utf8")).replace("List the working directory", "List nothing"));
    const edited = await cli("verify", parent);
    expect(edited.code).toBe(6);
    expect(edited.stdout).toMatch(new RegExp(`\\nsession ${parent}'s result at seq \\d+ links session ${child}, which no longer matches it: .*\\n$`));
    // --all checks each session's chain and each link: the child's edit breaks both.
    const all = await cli("verify", "--all");
    expect(all.code).toBe(6);
    expect(all.stdout).toMatch(new RegExp(`^intact: session ${parent}, .*\\nsession ${parent}'s result at seq \\d+ links session ${child}, which no longer matches it: `, "m"));
    expect(all.stdout).toMatch(new RegExp(`^broken: session ${child}: `, "m"));
  });

  it("links the subagents of a resumed session, and of a session in a JSONL file, in the file's directory", async () => {
    await mkdir(join(dir, "logs"));
    const run = await cli("run", "--log", "logs/main.jsonl", "What is here?");
    expect(run.code, run.stderr).toBe(0);
    const resumed = await cli("resume", "--subagents", "logs/main.jsonl", "And now?");
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await readdir(join(dir, "logs"))).filter((name) => name.endsWith(".jsonl"))).toHaveLength(2);
    const verified = await cli("verify", "logs/main.jsonl");
    expect(verified.code, verified.stdout).toBe(0);
    expect(verified.stdout.split("\n").filter((line) => line.startsWith("subagent of "))).toHaveLength(1);
  });
});
