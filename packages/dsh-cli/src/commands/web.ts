import { parseArgs } from "node:util";
import { PAGE_EVENTS, startWebServer } from "dsh-web";
import { PagePool } from "dsh-web-store";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { displayUrl, openStore, storeUrl } from "../store.js";
import { cliBackend } from "../web-backend.js";
import type { WebStoreInput } from "../web-store.js";

export const WEB_USAGE = "dsh web [--store URL] [--port N] [--objects DIR] [--page-events N]";

/** `dsh web`: serves the web app over the sessions of a store on loopback until interrupted. */
export async function webCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { store: { type: "string" }, port: { type: "string", default: "0" }, objects: { type: "string" }, "page-events": { type: "string", default: String(PAGE_EVENTS) } },
  });
  const port = Number(values.port);
  if (positionals.length > 0 || !Number.isInteger(port) || port < 0 || port > 65535) throw new CliError(`usage: ${WEB_USAGE}`, EXIT.usage);
  const pageEvents = Number(values["page-events"]);
  if (!Number.isSafeInteger(pageEvents) || pageEvents < 1) throw new CliError(`--page-events must be a whole number of events, at least 1 (not ${JSON.stringify(values["page-events"])})`, EXIT.usage);
  const url = storeUrl(values.store, io);
  const store = await openStore(url, io.cwd);
  const input: WebStoreInput = { url, cwd: io.cwd, objects: values.objects ?? null };
  const pages = new PagePool({ module: new URL(import.meta.url.endsWith(".ts") ? "../web-store.ts" : "./web-store.js", import.meta.url), input: { ...input } });
  try {
    const server = await startWebServer(cliBackend(store, io, values.objects, pages, pageEvents), { port });
    // The link carries this launch's secret, which every request needs: only whoever sees this output can use the server.
    io.stdout.write(`dsh web: ${server.openUrl} (sessions of ${displayUrl(url)}; Ctrl-C stops it)\n`);
    await new Promise<void>((resolve) => {
      if (io.signal === undefined) return; // runs until the process ends
      if (io.signal.aborted) resolve();
      io.signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await server.close();
    return EXIT.ok;
  } finally {
    await pages.close();
    await store.close();
  }
}
