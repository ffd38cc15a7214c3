import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Where the system Chromium is (`.ci/run` installs Debian's `chromium`); `DSH_CHROMIUM` overrides it. */
export const CHROMIUM = process.env.DSH_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Headless Chromium with the flags a machine without network needs. A missing browser fails the
 * test with how to get one: browser tests never skip.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium package (.ci/run does) or set DSH_CHROMIUM`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
