#!/usr/bin/env node
// Lists the surviving (and uncovered) mutants of a `pnpm mutate` report: file:line, mutator, replacement.
import { readFileSync } from "node:fs";

const report = JSON.parse(readFileSync(`reports/mutation/${process.argv[2] ?? "dsh-log"}.json`, "utf8"));
for (const [file, { mutants }] of Object.entries(report.files)) {
  for (const mutant of mutants) {
    if (mutant.status !== "Survived" && mutant.status !== "NoCoverage") continue;
    const { line, column } = mutant.location.start;
    console.log(`${file}:${line}:${column} ${mutant.status} ${mutant.mutatorName}: ${String(mutant.replacement).replace(/\s+/g, " ").slice(0, 140)}`);
  }
}
