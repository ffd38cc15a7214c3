import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePng } from "dsh-testkit";
import { runCli } from "./run-cli.js";

/** A small project for the workspace tools to look at, in a directory of its own (`../` is free for logs). */
export async function sampleProject(): Promise<string> {
  const root = join(await mkdtemp(join(tmpdir(), "dsh-project-")), "project");
  await mkdir(join(root, "src"), { recursive: true });
  await writeFile(join(root, "README.md"), "# sample\n\nA tiny project the fixtures look at.\n");
  await writeFile(join(root, "src", "main.ts"), 'export function greet(name: string): string {\n  return `hello ${name}`;\n}\n');
  await writeFile(join(root, "src", "util.ts"), "export const answer = 42;\n".repeat(12));
  await writeFile(join(root, "notes.txt"), "Remember: the cache is a prefix.\n".repeat(6));
  return root;
}

/** Runs the CLI in `cwd`, failing loudly on a non-zero exit. */
async function dsh(cwd: string, ...argv: string[]): Promise<string> {
  const { code, stdout, stderr } = await runCli(argv, { cwd });
  if (code !== 0) throw new Error(`dsh ${argv.join(" ")} exited ${code}: ${stderr}`);
  return stdout;
}

/** The seq of the last `turn/end` of a JSONL log's text. */
function lastTurnEnd(text: string): number {
  const ends = text.trimEnd().split("\n").filter((line) => line.includes('"type":"turn/end"'));
  return (JSON.parse(ends.at(-1)!) as { seq: number }).seq;
}

/**
 * Records the project's fixtures into `target` from sessions run on the simulator: a tool session
 * with trimming and compaction (real tools), a resume with a model switch (recorded tools), and a
 * fork with an image (Messages API dialect).
 */
export async function recordProjectFixtures(target: string): Promise<string[]> {
  const pressure = ["--context-window", "1000", "--compact-at", "0.45", "--trim-results", "20"];
  const tools = await sampleProject();
  await dsh(tools, "run", "--log", "../tool-session.jsonl", ...pressure, "look at the project");
  await dsh(tools, "resume", "../tool-session.jsonl", ...pressure, "read the sources");
  await dsh(tools, "resume", "../tool-session.jsonl", ...pressure, "and the notes");
  await dsh(tools, "resume", "../tool-session.jsonl", ...pressure, "what did you learn?");
  await dsh(tools, "fixture", "record", "../tool-session.jsonl", join(target, "tool-session"), "--tools", "real", "--workdir", ".", ...pressure);

  const resume = await sampleProject();
  await dsh(resume, "run", "--log", "s.jsonl", "what is here?");
  await dsh(resume, "resume", "s.jsonl", "--model", "sim-2", "and now?");
  await dsh(resume, "fixture", "record", "s.jsonl", join(target, "resume-model-switch"));

  const fork = await sampleProject();
  await writeFile(join(fork, "pixel.png"), makePng(3, 2));
  await dsh(fork, "run", "--provider", "sim-anthropic", "--log", "parent.jsonl", "hello");
  const { readFile } = await import("node:fs/promises");
  const at = lastTurnEnd(await readFile(join(fork, "parent.jsonl"), "utf8"));
  await dsh(fork, "resume", "parent.jsonl", "--provider", "sim-anthropic", "a turn the fork leaves out");
  await dsh(fork, "fork", "parent.jsonl", "--at", String(at), "--log", "fork.jsonl", "--provider", "sim-anthropic", "--image", "pixel.png", "what is in this picture?");
  await dsh(fork, "fixture", "record", "fork.jsonl", join(target, "fork-with-image"));
  return ["tool-session", "resume-model-switch", "fork-with-image"];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const target = process.argv[2] ?? join(await mkdtemp(join(tmpdir(), "dsh-fixtures-")), "fixtures");
  console.log((await recordProjectFixtures(target)).map((name) => join(target, name)).join("\n"));
}
