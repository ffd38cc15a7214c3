import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { checkFixture } from "./check.js";
import { fixturesGithub, fixturesJunit, type CheckedFixture } from "./ci-formats.js";
import { recordFixture } from "./record.js";
import { formatFixtureReport, type FixtureReport } from "./report.js";
import { echoSession, fixtureDir, SYSTEM_PROMPT } from "./test-support/session.js";

/** Two checked fixtures: one unchanged, one whose prompt sidecar was edited. */
async function checked(): Promise<CheckedFixture[]> {
  const steady = await fixtureDir("steady");
  const edited = await fixtureDir("edited");
  for (const dir of [steady, edited]) await recordFixture(await echoSession(), dir, { cwd: process.cwd() });
  await writeFile(join(edited, "prompts/r1.txt"), SYSTEM_PROMPT.replace("briefly", "in detail"));
  return [
    { dir: "fixtures/steady", report: await checkFixture(steady) },
    { dir: "fixtures/edited", report: await checkFixture(edited) },
  ];
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", isArray: (name) => name === "testcase" || name === "testsuite" });

describe("fixturesJunit", () => {
  it("parses as JUnit: a suite with a test case per fixture and the readable report as the failure", async () => {
    const fixtures = await checked();
    const text = fixturesJunit(fixtures);
    expect(XMLValidator.validate(text)).toBe(true);
    const { testsuites } = parser.parse(text) as { testsuites: { tests: string; failures: string; testsuite: { testcase: { name: string; classname: string; failure?: { message: string; "#text": string } }[] }[] } };
    expect([testsuites.tests, testsuites.failures]).toEqual(["2", "1"]);
    const cases = testsuites.testsuite[0]!.testcase;
    expect(cases.map((testcase) => [testcase.name, testcase.classname, testcase.failure === undefined])).toEqual([
      ["steady", "fixtures/steady", true],
      ["edited", "fixtures/edited", false],
    ]);
    const report = formatFixtureReport(fixtures[1]!.report);
    expect(cases[1]!.failure!["#text"]).toBe(report);
    expect(cases[1]!.failure!.message).toBe(report.split("\n")[0]);
  });

  it("escapes markup and drops what XML cannot hold, and carries the measured cache-read share", () => {
    const report = { name: 'a<b&"c"', ok: false, requests: { recorded: 1, replayed: 1, differences: [] }, breaks: { added: [], removed: [] }, sidecars: ["bell \u0007 <here>"], log: { differing: 0, examples: [] }, replay: { overruns: [], unusedAnswers: 0, unusedSummaries: 0 }, cache: { share: 0.5, writeAmp: null, limits: { cacheFloor: 0.9 }, ok: false, breaks: [] } } satisfies FixtureReport;
    const text = fixturesJunit([{ dir: "x&y", report }]);
    expect(XMLValidator.validate(text)).toBe(true);
    const parsed = parser.parse(text) as { testsuites: { testsuite: { testcase: { name: string; classname: string; properties: { property: { name: string; value: string } }; failure: { "#text": string } }[] }[] } };
    const [testcase] = parsed.testsuites.testsuite[0]!.testcase;
    expect([testcase!.name, testcase!.classname]).toEqual(['a<b&"c"', "x&y"]);
    expect(testcase!.properties.property).toEqual({ name: "cache-read-share", value: "50.0%" });
    expect(testcase!.failure["#text"]).toContain("sidecar: bell  <here>");
  });
});

/** A workflow command's message as GitHub Actions decodes it. */
const decode = (text: string) => text.replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%3A/g, ":").replace(/%2C/g, ",").replace(/%25/g, "%");

describe("fixturesGithub", () => {
  it("annotates each failed fixture on its fixture.json with its report, and summarizes all in Markdown", async () => {
    const fixtures = await checked();
    const { annotations, summary } = fixturesGithub(fixtures);
    const lines = annotations.split("\n").filter(Boolean);
    expect(lines).toHaveLength(1);
    const match = /^::error file=([^,]+),title=([^:]+)::(.*)$/.exec(lines[0]!);
    expect(match).not.toBeNull();
    expect(decode(match![1]!)).toBe("fixtures/edited/fixture.json");
    expect(decode(match![2]!)).toBe("dsh fixture edited");
    expect(decode(match![3]!)).toBe(formatFixtureReport(fixtures[1]!.report));
    expect(summary.split("\n").slice(0, 6)).toEqual([
      "### dsh fixtures: 1 of 2 passed",
      "",
      "| fixture | result | requests | cache-read share | directory |",
      "| --- | --- | ---: | ---: | --- |",
      "| steady | ✅ unchanged | 4 | – | `fixtures/steady` |",
      "| edited | ❌ failed | 4 | – | `fixtures/edited` |",
    ]);
    expect(summary).toContain(`<details><summary>edited</summary>\n\n\`\`\`\n${formatFixtureReport(fixtures[1]!.report)}\n\`\`\``);
    expect(fixturesGithub([fixtures[0]!]).annotations).toBe("");
  });

  it("escapes what would end a workflow command or a table cell", () => {
    const report = { name: "a:b,c|d", ok: false, requests: { recorded: 1, replayed: 1, differences: [] }, breaks: { added: [], removed: [] }, sidecars: ["100% sure\r\nnext"], log: { differing: 0, examples: [] }, replay: { overruns: [], unusedAnswers: 0, unusedSummaries: 0 } } satisfies FixtureReport;
    const { annotations, summary } = fixturesGithub([{ dir: "d", report }]);
    expect(annotations).toBe(`::error file=d/fixture.json,title=dsh fixture a%3Ab%2Cc|d::${formatFixtureReport(report).replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")}\n`);
    expect(annotations.split("\n")).toHaveLength(2);
    expect(summary).toContain("| a:b,c\\|d | ❌ failed |");
  });
});

describe("both formats, whole", () => {
  const base = { requests: { recorded: 3, replayed: 3, differences: [] }, breaks: { added: [], removed: [] }, sidecars: [], log: { differing: 0, examples: [] }, replay: { overruns: [], unusedAnswers: 0, unusedSummaries: 0 } };
  const kept = { ...base, name: "kept", ok: true, cache: { share: 0.75, writeAmp: null, limits: { cacheFloor: 0.5 }, ok: true, breaks: [] } } satisfies FixtureReport;
  const missed = { ...base, name: "missed", ok: false, cache: { share: 0.25, writeAmp: null, limits: { cacheFloor: 0.5 }, ok: false, breaks: [] } } satisfies FixtureReport;
  const plain = { ...base, name: "plain", ok: true } satisfies FixtureReport;
  const checked = [
    { dir: "f/kept", report: kept },
    { dir: "f/missed", report: missed },
    { dir: "f/plain", report: plain },
  ];

  it("writes this JUnit document", () => {
    const failure = formatFixtureReport(missed);
    expect(fixturesJunit(checked)).toBe(
      [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<testsuites name="dsh fixtures" tests="3" failures="1">',
        '  <testsuite name="dsh fixtures" tests="3" failures="1" errors="0" skipped="0">',
        '    <testcase classname="f/kept" name="kept">',
        '      <properties><property name="cache-read-share" value="75.0%"/></properties>',
        "    </testcase>",
        '    <testcase classname="f/missed" name="missed">',
        '      <properties><property name="cache-read-share" value="25.0%"/></properties>',
        `      <failure message="${failure.split("\n")[0]}" type="fixture">${failure}</failure>`,
        "    </testcase>",
        '    <testcase classname="f/plain" name="plain">',
        "    </testcase>",
        "  </testsuite>",
        "</testsuites>",
        "",
      ].join("\n"),
    );
  });

  it("writes this summary and this annotation", () => {
    const { annotations, summary } = fixturesGithub(checked);
    expect(annotations).toBe(`::error file=f/missed/fixture.json,title=dsh fixture missed::${formatFixtureReport(missed).replace(/%/g, "%25").replace(/\n/g, "%0A")}\n`);
    expect(summary).toBe(
      [
        "### dsh fixtures: 2 of 3 passed",
        "",
        "| fixture | result | requests | cache-read share | directory |",
        "| --- | --- | ---: | ---: | --- |",
        "| kept | ✅ unchanged | 3 | 75.0% | `f/kept` |",
        "| missed | ❌ failed | 3 | 25.0% | `f/missed` |",
        "| plain | ✅ unchanged | 3 | – | `f/plain` |",
        "",
        `<details><summary>missed</summary>\n\n\`\`\`\n${formatFixtureReport(missed)}\n\`\`\`\n\n</details>`,
        "",
      ].join("\n"),
    );
    expect(fixturesGithub([checked[0]!]).summary).toBe(
      ["### dsh fixtures: 1 of 1 passed", "", "| fixture | result | requests | cache-read share | directory |", "| --- | --- | ---: | ---: | --- |", "| kept | ✅ unchanged | 3 | 75.0% | `f/kept` |", ""].join("\n"),
    );
  });
});

