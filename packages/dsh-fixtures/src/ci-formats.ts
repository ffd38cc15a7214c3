import { formatFixtureReport, type FixtureReport } from "./report.js";

/** A checked fixture: where it is (as the CI job names it) and what the check found. */
export interface CheckedFixture {
  readonly dir: string;
  readonly report: FixtureReport;
}

/** Text as XML character data or an attribute value: markup escaped, characters XML cannot hold dropped. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

/** The share a report's cache check measured, as CI output shows it. */
function share(report: FixtureReport): string {
  return report.cache?.share == null ? "" : `${(100 * report.cache.share).toFixed(1)}%`;
}

/**
 * The checks as a JUnit XML document: one test suite, one test case per fixture (named by the
 * fixture, its class the directory), a failure carrying the whole readable report for each that
 * failed, and the cache-read share as a property where it was measured.
 */
export function fixturesJunit(checked: readonly CheckedFixture[]): string {
  const failures = checked.filter(({ report }) => !report.ok).length;
  const cases = checked.map(({ dir, report }) => {
    const text = formatFixtureReport(report);
    const properties = report.cache === undefined ? "" : `\n      <properties><property name="cache-read-share" value="${xml(share(report))}"/></properties>`;
    const failure = report.ok ? "" : `\n      <failure message="${xml(text.split("\n")[0]!)}" type="fixture">${xml(text)}</failure>`;
    return `    <testcase classname="${xml(dir)}" name="${xml(report.name)}">${properties}${failure}\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dsh fixtures" tests="${checked.length}" failures="${failures}">`,
    `  <testsuite name="dsh fixtures" tests="${checked.length}" failures="${failures}" errors="0" skipped="0">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** A workflow command's message: `%`, CR and LF escaped, as GitHub Actions reads it. */
function commandData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** A workflow command's property value: the message's escapes, and `:` and `,`. */
function commandProperty(text: string): string {
  return commandData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * The checks as GitHub Actions reads them: an `::error` annotation per failed fixture (on its
 * `fixture.json`, titled by the fixture, the report as its message) for the job's standard output,
 * and a Markdown summary (a table, then each failure's report) for `GITHUB_STEP_SUMMARY`.
 */
export function fixturesGithub(checked: readonly CheckedFixture[]): { readonly annotations: string; readonly summary: string } {
  const failed = checked.filter(({ report }) => !report.ok);
  const annotations = failed.map(({ dir, report }) => `::error file=${commandProperty(`${dir}/fixture.json`)},title=${commandProperty(`dsh fixture ${report.name}`)}::${commandData(formatFixtureReport(report))}\n`).join("");
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const rows = checked.map(({ dir, report }) => `| ${cell(report.name)} | ${report.ok ? "✅ unchanged" : "❌ failed"} | ${report.requests.recorded} | ${share(report) || "–"} | \`${cell(dir)}\` |`);
  const details = failed.map(({ report }) => `<details><summary>${xml(report.name)}</summary>\n\n\`\`\`\n${formatFixtureReport(report).replace(/```/g, "` ` `")}\n\`\`\`\n\n</details>`);
  const summary = [
    `### dsh fixtures: ${checked.length - failed.length} of ${checked.length} passed`,
    "",
    "| fixture | result | requests | cache-read share | directory |",
    "| --- | --- | ---: | ---: | --- |",
    ...rows,
    ...(details.length === 0 ? [] : ["", ...details]),
    "",
  ].join("\n");
  return { annotations, summary };
}
