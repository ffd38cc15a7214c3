import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { LogError } from "dsh-log";
import { DshError } from "dsh-base";
import { CliError, describeFailure } from "./cli-error.js";
import { runCli } from "./test-support/run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "dsh-settings-"));
  await writeFile(join(dir, "README.md"), "# Sample\n");
  return () => rm(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCli(argv, { cwd: dir });
const modeOf = async (name: string) => (await stat(join(dir, name))).mode & 0o777;

describe("stores named wrong, or out of reach", () => {
  it("refuses a scheme dsh does not know, naming the ones it does, with no directory made and no password shown", async () => {
    for (const [store, shown] of [
      ["sqlit:x.db", "sqlit:x.db"],
      ["mysql://u:pa55word@db.example/app", "mysql://u:***@db.example/app"],
      ["http://127.0.0.1:9/store", "http://127.0.0.1:9/store"],
    ]) {
      const run = await cli("run", "--store", store!, "hi");
      expect(run).toMatchObject({ code: 2, stderr: `dsh: unknown store ${shown}: dsh knows sqlite:PATH, postgres://… (or postgresql://…) and a directory of JSONL logs\n` });
    }
    // No store was made under a name dsh did not know.
    expect((await readdir(dir)).filter((name) => /^(sqlit|mysql|http)/.test(name))).toEqual([]);
  });

  it("says a PostgreSQL server that is down is the store unavailable, named without its password", async () => {
    const run = await cli("sessions", "--store", "postgres://dsh:pa55word@127.0.0.1:1/sessions");
    expect(run).toMatchObject({ code: 3, stderr: "dsh: store unavailable: cannot reach the store postgres://dsh:***@127.0.0.1:1/sessions: connect ECONNREFUSED 127.0.0.1:1 [LOG_STORE_UNAVAILABLE]\n" });
  });

  it("says a SQLite store in a directory that does not exist is unavailable, naming the directory", async () => {
    const run = await cli("run", "--store", "sqlite:missing/sessions.db", "hi");
    expect(run).toMatchObject({ code: 3, stderr: `dsh: store unavailable: cannot open the store sqlite:${join(dir, "missing", "sessions.db")}: its directory ${join(dir, "missing")} does not exist [LOG_STORE_UNAVAILABLE]\n` });
  });
});

describe("files dsh writes", () => {
  it("are readable by their owner only: a SQLite store and what SQLite keeps beside it, an exported page, a proof", async () => {
    const run = await cli("run", "--store", "sqlite:sessions.db", "hi");
    expect(run.code).toBe(0);
    const id = /#(\S+)\n/.exec(run.stderr)![1]!;
    for (const name of (await readdir(dir)).filter((name) => name.startsWith("sessions.db"))) expect([name, await modeOf(name)]).toEqual([name, 0o600]);
    expect((await cli("view", id, "--store", "sqlite:sessions.db", "-o", "page.html")).code).toBe(0);
    expect(await modeOf("page.html")).toBe(0o600);
    expect((await cli("keygen", "k.pem")).code).toBe(0);
    expect((await cli("run", "--log", "s.jsonl", "--signing-key", "k.pem", "--witness", "w.jsonl", "hi")).code).toBe(0);
    const seq = (JSON.parse((await cli("requests", "s.jsonl")).stdout.split("\n")[0]!) as { seq: number }).seq;
    expect((await cli("prove", "s.jsonl", "--seq", String(seq), "--witness", "w.jsonl", "-o", "proof.json")).code).toBe(0);
    expect(await modeOf("proof.json")).toBe(0o600);
  });
});

describe("signing keys and witnesses", () => {
  it("refuses a signing key others can read, and names a bad key or a failing witness for what it is", async () => {
    expect((await cli("keygen", "k.pem")).code).toBe(0);
    await chmod(join(dir, "k.pem"), 0o644);
    expect(await cli("run", "--log", "s.jsonl", "--signing-key", "k.pem", "--witness", "w.jsonl", "hi")).toMatchObject({
      code: 2,
      stderr: "dsh: the signing key k.pem can be read by others (mode 644): make it yours alone (chmod 600 k.pem)\n",
    });
    await writeFile(join(dir, "bad.pem"), "not a key", { mode: 0o600 });
    expect(await cli("run", "--log", "s.jsonl", "--signing-key", "bad.pem", "--witness", "w.jsonl", "hi")).toMatchObject({ code: 2, stderr: "dsh: signing key: the signing key is not a PKCS#8 PEM private key [LOG_BAD_KEY]\n" });
    await chmod(join(dir, "k.pem"), 0o600);
    // A witness that cannot be written (a directory stands where the file should be) is refused before any turn.
    expect(await cli("run", "--log", "t.jsonl", "--signing-key", "k.pem", "--witness", ".", "hi")).toMatchObject({ code: 2, stderr: "dsh: cannot write the witness .: EISDIR\n" });
    await expect(readFile(join(dir, "t.jsonl"))).rejects.toMatchObject({ code: "ENOENT" });
  });
});

describe("describeFailure", () => {
  it("labels a log error by what failed: the log, its store, a signing key, a witness", () => {
    const line = (code: LogError["code"]) => describeFailure(new LogError(code, "what happened"));
    expect(line("LOG_CORRUPT")).toEqual({ line: "bad log: what happened [LOG_CORRUPT]", exitCode: 3 });
    expect(line("LOG_NOT_FOUND")).toEqual({ line: "log not found: what happened [LOG_NOT_FOUND]", exitCode: 3 });
    expect(line("LOG_LOCKED")).toEqual({ line: "log in use: what happened [LOG_LOCKED]", exitCode: 3 });
    expect(line("LOG_STORE_UNAVAILABLE")).toEqual({ line: "store unavailable: what happened [LOG_STORE_UNAVAILABLE]", exitCode: 3 });
    expect(line("LOG_WITNESS_FAILED")).toEqual({ line: "witness: what happened [LOG_WITNESS_FAILED]", exitCode: 3 });
    expect(line("LOG_BAD_KEY")).toEqual({ line: "signing key: what happened [LOG_BAD_KEY]", exitCode: 2 });
  });

  it("tells every package's errors apart by their stable codes, and any other error by its message", () => {
    const said = (code: string) => describeFailure(new DshError(code, "what happened"));
    expect(said("FIXTURE_INVALID")).toEqual({ line: "fixture: what happened [FIXTURE_INVALID]", exitCode: 3 });
    expect(said("FIXTURE_EXISTS")).toEqual({ line: "fixture: what happened [FIXTURE_EXISTS]", exitCode: 2 });
    expect(said("FIXTURE_UNREPLAYABLE")).toEqual({ line: "fixture: what happened [FIXTURE_UNREPLAYABLE]", exitCode: 1 });
    expect(said("PROOF_REFUSED")).toEqual({ line: "proof refused: what happened", exitCode: 6 });
    expect(said("PROOF_UNBACKED")).toEqual({ line: "proof refused: what happened", exitCode: 6 });
    expect(said("PROOF_NOT_A_DISPATCH")).toEqual({ line: "what happened (dsh requests LOG lists them)", exitCode: 2 });
    expect(said("PROOF_UNSENT")).toEqual({ line: "what happened", exitCode: 2 });
    expect(said("WHAT_IF_NOT_REPLAYABLE")).toEqual({ line: "what happened", exitCode: 1 });
    expect(said("WHAT_IF_NO_TURN")).toEqual({ line: "what happened", exitCode: 2 });
    expect(said("WIRE_UNKNOWN_PROVIDER")).toEqual({ line: "cannot rebuild: what happened [WIRE_UNKNOWN_PROVIDER]", exitCode: 3 });
    expect(said("OTEL_INVALID_OPTIONS")).toEqual({ line: "export: what happened [OTEL_INVALID_OPTIONS]", exitCode: 2 });
    expect(said("OTEL_EXPORT_FAILED")).toEqual({ line: "export: what happened [OTEL_EXPORT_FAILED]", exitCode: 1 });
    expect(said("ATTACHMENT_MISSING")).toEqual({ line: "attachment: what happened [ATTACHMENT_MISSING]", exitCode: 4 });
    expect(said("LLM_NETWORK")).toEqual({ line: "provider unreachable: what happened [LLM_NETWORK]", exitCode: 5 });
    expect(said("LLM_TIMEOUT")).toEqual({ line: "provider error: what happened [LLM_TIMEOUT]", exitCode: 5 });
    expect(said("AGENT_INVALID_OPTIONS")).toEqual({ line: "what happened", exitCode: 1 });
    expect(describeFailure(new Error("plain"))).toEqual({ line: "plain", exitCode: 1 });
    expect(describeFailure("thrown text")).toEqual({ line: "thrown text", exitCode: 1 });
    expect(describeFailure(new CliError("said", 7))).toEqual({ line: "said", exitCode: 7 });
  });
});
