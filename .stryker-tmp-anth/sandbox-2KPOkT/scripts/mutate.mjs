#!/usr/bin/env node
// `pnpm mutate [package ...]`: Stryker over each core package's sources, killed by that package's own
// tests, one package at a time; prints each package's mutation score and the total.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CORE = ["dsh-llm", "dsh-log", "dsh-surface", "dsh-header", "dsh-agent"];
const packages = process.argv.slice(2).length > 0 ? process.argv.slice(2) : CORE;
// Fewer property-test cases per mutant: each mutant reruns every test that covers it. Mutants leak
// what the real code would release (a log's lock, keyed by the file's inode, in the temporary
// directory), so the runs get a temporary directory of their own, apart from other work on the machine.
const env = { ...process.env, DSH_PROPERTY_RUNS: process.env.DSH_PROPERTY_RUNS ?? "15", TMPDIR: mkdtempSync(join(tmpdir(), "dsh-mutate-")) };

const rows = [];
for (const name of packages) {
  const run = spawnSync("npx", ["stryker", "run"], { stdio: "inherit", env: { ...env, DSH_MUTATE_PACKAGE: name } });
  if (run.status !== 0) process.exit(run.status ?? 1);
  const report = JSON.parse(readFileSync(`reports/mutation/${name}.json`, "utf8"));
  const counts = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) {
      if (mutant.status === "Killed") counts.killed++;
      else if (mutant.status === "Timeout") counts.timeout++;
      else if (mutant.status === "Survived") counts.survived++;
      else if (mutant.status === "NoCoverage") counts.noCoverage++;
    }
  }
  rows.push({ name, ...counts });
}

const score = (row) => (100 * (row.killed + row.timeout)) / (row.killed + row.timeout + row.survived + row.noCoverage);
const total = rows.reduce((sum, row) => ({ killed: sum.killed + row.killed, timeout: sum.timeout + row.timeout, survived: sum.survived + row.survived, noCoverage: sum.noCoverage + row.noCoverage }), { killed: 0, timeout: 0, survived: 0, noCoverage: 0 });
console.log("\npackage          score   killed  timeout  survived  no-coverage");
for (const row of [...rows, { name: "total", ...total }]) {
  console.log(`${row.name.padEnd(15)} ${score(row).toFixed(1).padStart(6)}% ${String(row.killed).padStart(8)} ${String(row.timeout).padStart(8)} ${String(row.survived).padStart(9)} ${String(row.noCoverage).padStart(12)}`);
}
