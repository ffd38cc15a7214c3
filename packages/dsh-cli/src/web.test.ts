import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createAgentRegistry } from "dsh-agent";
import { headerEquals, requestHeaderEvent } from "dsh-header";
import { JsonlStore } from "dsh-log";
import { makePng } from "dsh-testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "./test-support/browser.js";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";
import { startDshWeb } from "./test-support/web-server.js";

const SCREENSHOTS = process.env.DSH_WEB_SCREENSHOTS;

/** What the tests read of an `<img>` in the page (the test itself compiles without the DOM library). */
type ImageLike = { complete: boolean; naturalWidth: number; naturalHeight: number; src: string };

async function dsh(cwd: string, ...argv: string[]): Promise<string> {
  const { code, stderr } = await runCli(argv, { cwd });
  if (code !== 0) throw new Error(`dsh ${argv.join(" ")} exited ${code}: ${stderr}`);
  return /dsh: log: .*\/([^/]+)\.jsonl\n/.exec(stderr)?.[1] ?? "";
}

async function shot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS !== undefined) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

describe("dsh web in Chromium", () => {
  let project: string;
  let main: string;
  let fork: string;
  let diagnosed: string;
  let delegated: string;
  let browser: Browser;
  let server: Awaited<ReturnType<typeof startDshWeb>>;

  beforeAll(async () => {
    project = await sampleProject();
    await writeFile(join(project, "pixel.png"), makePng(4, 3, 0x30));
    main = await dsh(project, "run", "look at the project");
    await dsh(project, "resume", main, "--model", "sim-2", "and the sources?");
    const forkAt = (await new JsonlStore(join(project, ".dsh", "sessions")).read(main, createAgentRegistry())).log.slice().find((event) => event.type === "turn/end")!.seq;
    fork = await dsh(project, "fork", main, "--at", String(forkAt), "--image", "pixel.png", "what is in this picture?");
    diagnosed = await dsh(project, "run", "--provider", "sim-anthropic", "--cache-diagnostics", "diagnose the cache");
    await dsh(project, "resume", diagnosed, "--model", "claude-opus-4-8", "once more");
    delegated = await dsh(project, "run", "--subagents", "hand the look around to a subagent");
    browser = await launchChromium();
    server = await startDshWeb(project);
  });

  afterAll(async () => {
    await browser?.close();
    expect(await server?.stop()).toBe(0);
  });

  it("goes from a tool result to the subagent session it ran, and from there back to the parent's answer that called it", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(server.at(`sessions/${delegated}`));
    await page.waitForSelector(".entry a.session-link");
    const toChild = page.locator(".entry.kind-tool a.session-link");
    await expect(toChild.count()).resolves.toBe(1);
    await expect(toChild.textContent()).resolves.toBe("subagent session →");
    await toChild.click();
    await page.waitForURL((url) => url.pathname.startsWith("/sessions/") && !url.pathname.endsWith(delegated));
    const child = decodeURIComponent(new URL(page.url()).pathname.split("/").at(-1)!);
    await page.waitForSelector("#seq-0 a.session-link");
    await expect(page.locator("#seq-0 .label").textContent()).resolves.toMatch(new RegExp(`^subagent session of ${delegated}: call \\S+ \\(delegate\\) of the answer at seq \\d+$`));
    const answerSeq = /of the answer at seq (\d+)$/.exec((await page.locator("#seq-0 .label").textContent())!)![1]!;
    await page.locator("#seq-0 a.session-link").click();
    await page.waitForSelector(`#seq-${answerSeq}.selected`);
    expect(new URL(page.url()).pathname).toBe(`/sessions/${delegated}`);
    await expect(page.locator(`#seq-${answerSeq} .label`).textContent()).resolves.toMatch(/^assistant: .*→ delegate /);
    expect(child).not.toBe(delegated);
    // The list shows the subagent's session right under its parent, indented, naming it.
    await page.goto(server.at(""));
    await page.waitForSelector(`tr[data-session="${child}"]`);
    const ids = await page.locator("tbody tr").evaluateAll((rows) => rows.map((row) => row.getAttribute("data-session")));
    expect(ids.indexOf(child)).toBe(ids.indexOf(delegated) + 1);
    const childRow = page.locator(`tr[data-session="${child}"]`);
    await expect(childRow.locator("td.parent").textContent()).resolves.toBe(`subagent of ${delegated}`);
    await expect(childRow.locator("td").first().getAttribute("style")).resolves.toMatch(/^padding-left: ?1\.5em;?$/);
    await expect(page.locator(`tr[data-session="${delegated}"] td`).first().getAttribute("style")).resolves.toBeNull();
    await childRow.locator("td.parent a").click();
    await page.waitForURL((url) => url.pathname === `/sessions/${delegated}`);
    await page.close();
  });

  it("lists the store's sessions with their first prompt, models, turns, requests, cache-read share and fork parents, filtered by text", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(server.at(""));
    const row = page.locator(`tr[data-session="${main}"]`);
    await expect(row.locator("td.prompt").textContent()).resolves.toBe("look at the project");
    await expect(row.locator("td").nth(3).textContent()).resolves.toBe("sim/sim-1, sim/sim-2");
    await expect(row.locator("td").nth(4).textContent()).resolves.toBe("2");
    expect(Number(await row.locator("td").nth(5).textContent())).toBeGreaterThan(2);
    await expect(row.locator("td").nth(6).textContent()).resolves.toMatch(/^\d+\.\d %$/);
    await expect(page.locator(`tr[data-session="${fork}"] td`).nth(7).textContent()).resolves.toBe(main);
    await shot(page, "sessions");
    const all = await page.locator("tbody tr").count();
    expect(all).toBeGreaterThanOrEqual(2);
    // Only the main session ran on sim-2; the words of a query may come in any order and case.
    await page.fill("input.filter", "SIM-2 project");
    await expect(page.locator("tbody tr").count()).resolves.toBe(1);
    await expect(page.locator(`tr[data-session="${main}"]`).count()).resolves.toBe(1);
    await expect(page.locator("p.count").textContent()).resolves.toBe(`1 of ${all} session(s)`);
    await page.fill("input.filter", "no session says this");
    await expect(page.locator("tbody tr").count()).resolves.toBe(0);
    await page.close();
  });

  it("keeps the launch's secret from every other server on this host: no cookie reaches another port, and the app keeps working without the link", async () => {
    const token = server.auth["x-dsh-token"]!;
    const seen: string[] = [];
    const other = createServer((request, response) => {
      seen.push(JSON.stringify(request.headers));
      response.end("another local server");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const page = await browser.newPage();
      await page.goto(server.at(""));
      await page.locator(`tr[data-session="${main}"]`).waitFor();
      // The secret leaves the address bar, and is no cookie.
      expect(page.url()).toBe(server.url);
      expect(JSON.stringify(await page.context().cookies())).not.toContain(token);
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      await page.goto(`http://localhost:${(other.address() as AddressInfo).port}/`);
      expect(seen.length).toBeGreaterThanOrEqual(2); // the pages, and the favicon Chromium asks for
      for (const headers of seen) expect(headers).not.toContain(token);
      // Back on dsh web by a link without the secret: the app still has it for this origin.
      await page.goto(`${server.url}sessions/${main}`);
      await page.locator("[data-request]").first().waitFor();
      await page.close();
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it("opens a session, shows each request's token split and node diff, and follows a cache break to the event that explains it", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(server.at(""));
    await page.click(`tr[data-session="${main}"] a`);
    await page.waitForSelector("h1");
    await expect(page.locator("h1").textContent()).resolves.toBe(main);
    const cards = page.locator(".request-card");
    expect(await cards.count()).toBeGreaterThan(2);
    // Request 2 extends request 1: the model's answer and the tool result are appended, nothing replaced.
    await expect(page.locator('[data-request="2"] .node-summary').textContent()).resolves.toMatch(/^vs the previous request: 2 message\(s\) kept, 2 appended, 0 replaced$/);
    await expect(page.locator('[data-request="2"] .token-legend').textContent()).resolves.toMatch(/\d+ cached/);
    await expect(page.locator('[data-request="2"] .bar-cached').count()).resolves.toBe(1);
    // The page carries no wire body: opening one asks the server for it.
    const wire = page.locator('[data-request="2"] details.wire');
    await expect(wire.locator("summary").textContent()).resolves.toBe("wire body");
    await wire.locator("summary").click();
    const body = (await runCli(["requests", main, "--wire"], { cwd: project })).stdout.split("\n")[1]!;
    await expect(wire.locator("pre").textContent()).resolves.toBe(body);
    await expect(wire.locator("summary").textContent()).resolves.toBe(`wire body (${Buffer.byteLength(body)} bytes)`);
    await shot(page, "session");

    // The one break is the resume on another model; its card names the header snapshot, by seq.
    await page.click(".breaks-summary a.break-link");
    const breakCard = page.locator(".break-card");
    await expect(breakCard.count()).resolves.toBe(1);
    const cause = breakCard.locator("a.seq-link").first();
    await expect(breakCard.textContent()).resolves.toMatch(/resumed with other settings: model "sim-1" → "sim-2" \(seq \d+\)/);
    await shot(page, "break");
    const seq = (await cause.textContent())!.replace("seq ", "");
    await cause.click();
    await page.waitForSelector(`#seq-${seq}.selected`);
    expect(new URL(page.url()).hash).toBe(`#seq=${seq}`);
    await expect(page.locator(`#seq-${seq} .label`).textContent()).resolves.toMatch(/^header resume: provider="sim" model="sim-2" .*; tools: /);
    // A deep link opens the page at that event.
    const deep = await browser.newPage();
    await deep.goto(`${server.at(`sessions/${main}`)}#seq=${seq}`);
    await deep.waitForSelector(`#seq-${seq}.selected`);
    // A link to a break opens its card in full, clear of the composer at the bottom of the window.
    const breakHref = (await page.locator(".breaks-summary a.break-link").getAttribute("href"))!;
    await deep.setViewportSize({ width: 1000, height: 500 });
    await deep.goto(`${server.at(`sessions/${main}`)}${breakHref}`);
    await deep.waitForSelector(`#seq-${breakHref.slice("#seq=".length)}.selected .break-card`);
    await deep.waitForFunction(() => {
      const view = globalThis as unknown as { document: { querySelector(selector: string): { getBoundingClientRect(): { top: number; bottom: number } } } };
      const composer = view.document.querySelector(".composer").getBoundingClientRect();
      const card = view.document.querySelector(".selected .break-card").getBoundingClientRect();
      const entry = view.document.querySelector(".selected").getBoundingClientRect();
      // The card is in full view; the request it belongs to starts at the top of the window, or fits above the composer.
      return card.top >= 0 && card.bottom <= composer.top && entry.top >= 0 && (entry.top <= 40 || entry.bottom <= composer.top);
    }, undefined, { timeout: 5_000 });
    await deep.close();
    await page.close();
  });

  it("shows a long session a page at a time, from the last, and follows a link to an event on another page", async () => {
    const paged = await startDshWeb(project, ["--page-events", "10"]);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    try {
      await page.goto(paged.at(`sessions/${main}`));
      const pager = page.locator("nav.pager").first();
      await pager.waitFor();
      const pages = await pager.locator("option").count();
      expect(pages).toBeGreaterThan(2);
      // The last page is shown first: the session goes on there.
      await expect(pager.locator("select").inputValue()).resolves.toBe(String(pages));
      await expect(pager.locator("option").first().textContent()).resolves.toMatch(/^page 1 of \d+: turn 0 \(seqs 0–\d+\)$/);
      await expect(page.locator(".composer").count()).resolves.toBe(1);
      await pager.locator("select").selectOption("1");
      await page.waitForSelector("li.entry[data-seq='0']");
      expect(await page.locator("li.entry").count()).toBeLessThanOrEqual(10);
      await expect(pager.locator("button", { hasText: "earlier" }).isDisabled()).resolves.toBe(true);
      await pager.locator("button", { hasText: "later" }).click();
      await expect.poll(() => pager.locator("select").inputValue()).toBe("2");
      // Every break of the session is linked from every page; following one loads the page that holds it.
      await pager.locator("select").selectOption("1");
      await page.waitForSelector("li.entry[data-seq='0']");
      await expect(page.locator(".break-card").count()).resolves.toBe(0);
      const breakHref = (await page.locator(".breaks-summary a.break-link").getAttribute("href"))!;
      await page.click(".breaks-summary a.break-link");
      await page.waitForSelector(`#seq-${breakHref.slice("#seq=".length)}.selected .break-card`);
      // Paging after following a link goes where it is asked, and stays there.
      await pager.locator("select").selectOption("1");
      await page.waitForSelector("li.entry[data-seq='0']");
      await page.waitForLoadState("networkidle");
      await expect(pager.locator("select").inputValue()).resolves.toBe("1");
      await expect(page.locator("li.entry.selected").count()).resolves.toBe(0);
      expect(new URL(page.url()).hash).toBe("");
      // A deep link to an event opens the page that holds it.
      const deep = await browser.newPage();
      await deep.goto(`${paged.at(`sessions/${main}`)}#seq=1`);
      await deep.waitForSelector("#seq-1.selected");
      await expect(deep.locator("nav.pager select").first().inputValue()).resolves.toBe("1");
      await deep.close();
    } finally {
      await page.close();
      expect(await paged.stop()).toBe(0);
    }
  });

  it("shows the provider's own cache diagnosis on the break card, beside dsh's cause", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(server.at(`sessions/${diagnosed}`));
    await page.waitForSelector(".break-card");
    const card = page.locator(".request-card.has-break");
    await expect(card.count()).resolves.toBe(1);
    await expect(card.locator(".break-card").textContent()).resolves.toMatch(/model "claude-sonnet-4-6" → "claude-opus-4-8"/);
    await expect(card.locator(".provider-verdict").getAttribute("data-agreement")).resolves.toBe("agree");
    await expect(card.locator(".provider-verdict").textContent()).resolves.toMatch(/^provider's diagnosis: miss \(model_changed, \d+ tokens\) — agrees with the log$/);
    // Requests that agree without a break say nothing more.
    await expect(page.locator(".provider-verdict").count()).resolves.toBe(1);
    await shot(page, "diagnosis");
    await page.close();
  });

  it("compares the recording with a new system prompt from a turn on, request by request, with the break it causes", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(server.at(`sessions/${diagnosed}`));
    const turn1 = page.locator("li.entry", { has: page.locator("summary", { hasText: /^turn\/start$/ }) }).nth(1);
    await turn1.locator("button.what-if-open").click();
    await turn1.locator(".what-if textarea").fill("You are brief.");
    await turn1.locator(".what-if button[type=submit]").click();
    const table = turn1.locator(".what-if-table");
    await table.waitFor({ timeout: 20_000 });
    const rows = table.locator("tbody tr[data-step]");
    expect(await rows.count()).toBeGreaterThan(1);
    const firstOfTurn1 = table.locator('tr[data-step="1.0"] td.note');
    await expect(firstOfTurn1.textContent()).resolves.toMatch(/^break \(as recorded\): the system prompt changed: the message logged at seq 2 \(seq \d+\); resumed with other settings: model "claude-sonnet-4-6" → "claude-opus-4-8"/);
    await expect(table.locator('tr[data-step="0.0"] td.note').textContent()).resolves.toBe("");
    await expect(turn1.locator(".what-if-delta").textContent()).resolves.toMatch(/^What if the system prompt "You are brief\." from seq \d+ on: cache reads -?\d+ tokens, uncached input [+-]?\d+, cost [+-]\$[\d.]+\.$/);
    await expect(turn1.locator(".what-if-honesty").first().textContent()).resolves.toMatch(/^Exact: every request's bytes/);
    await shot(page, "what-if");
    // A model change is asked the same way; an empty model name means the one shown.
    await turn1.locator(".what-if select").selectOption("model");
    await turn1.locator(".what-if input[name=value]").fill("claude-haiku-4-5");
    await turn1.locator(".what-if button[type=submit]").click();
    await expect.poll(() => turn1.locator(".what-if-delta").textContent(), { timeout: 20_000 }).toMatch(/^What if the model claude-haiku-4-5 /);
    await page.close();
  });

  it("shows a fork's image only after its digest is verified, with a link to the parent", async () => {
    const page = await browser.newPage();
    await page.goto(server.at(`sessions/${fork}`));
    const image = page.locator(".request-card figure img").first();
    await image.waitFor();
    // Loaded: its bytes came from the server once their digest matched.
    await image.evaluate((element) => {
      const img = element as unknown as ImageLike & { decode(): Promise<void> };
      return img.complete ? undefined : img.decode();
    });
    expect(await image.evaluate((element) => [(element as unknown as ImageLike).complete, (element as unknown as ImageLike).naturalWidth, (element as unknown as ImageLike).naturalHeight])).toEqual([true, 4, 3]);
    await expect(page.locator("figcaption").first().textContent()).resolves.toMatch(/^verified sha256:/);
    await expect(page.locator(".facts a").textContent()).resolves.toBe(main);
    await expect(page.locator(".kind-fork .label").textContent()).resolves.toMatch(/fork point/);
    await page.close();
  });

  it("continues the session from the browser with the restored model and no header change", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(server.at(`sessions/${main}`));
    await page.waitForSelector(".composer");
    await expect(page.locator('.composer input[name="model"]').inputValue()).resolves.toBe("sim-2");
    await expect(page.locator(".composer .explicit").count()).resolves.toBe(0); // max tokens is the adapter's: not offered as a choice
    const before = await page.locator(".request-card").count();
    await page.fill(".composer textarea", "what did you find?");
    await page.click(".composer button");
    await expect.poll(() => page.locator(".request-card").count(), { timeout: 20_000 }).toBeGreaterThan(before);
    await expect(page.locator(".composer .status").textContent()).resolves.toMatch(/^turn 2 completed$/);
    await expect(page.locator(".composer .answer").textContent()).resolves.not.toBe("");
    await shot(page, "continue");
    await page.close();

    const { log } = await new JsonlStore(join(project, ".dsh", "sessions")).read(main, createAgentRegistry());
    const snapshots = log.slice().filter((event) => requestHeaderEvent.is(event)).map((event) => (event as typeof event & { data: { reason: string; header: never } }).data);
    const [previous, resumed] = snapshots.slice(-2);
    expect(resumed!.reason).toBe("resume");
    expect(headerEquals(previous!.header, resumed!.header)).toBe(true);
  });

  it("exports a session as one HTML file that renders offline with its image", async () => {
    const out = join(project, "..", "session.html");
    const { code, stderr } = await runCli(["view", fork, "-o", out], { cwd: project });
    expect(code).toBe(0);
    expect(stderr).toMatch(/opens offline/);
    const html = await readFile(out, "utf8");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (request) => requested.push(request.url()));
    await page.goto(pathToFileURL(out).href);
    const image = page.locator(".request-card figure img").first();
    await image.waitFor();
    expect(await image.evaluate((element) => [(element as unknown as ImageLike).naturalWidth, (element as unknown as ImageLike).src.slice(0, 15)])).toEqual([4, "data:image/png;"]);
    await expect(page.locator("h1").textContent()).resolves.toBe(fork);
    expect(await page.locator(".composer").count()).toBe(0);
    expect(requested.filter((url) => !url.startsWith("file:") && !url.startsWith("data:"))).toEqual([]);
    expect(requested[0]).toBe(pathToFileURL(out).href);
    await page.close();
  });
});
