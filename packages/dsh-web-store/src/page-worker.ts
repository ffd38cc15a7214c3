// The child process a PagePool starts: opens the store with the pool's module, then builds one page
// at a time for the server over IPC, so reading and rendering a large session never holds its event loop.
import { isAbsolute } from "node:path";
import { pathToFileURL } from "node:url";
import { isDshError } from "dsh-base";
import type { JsonValue } from "dsh-llm";
import { buildPage } from "./page-jobs.js";
import { PAGE_WORKER_ENV, type OpenPageStore, type PageJob, type PageReply } from "./page-pool.js";
import { SessionCache } from "./store-pages.js";

const [module, input] = JSON.parse(process.env[PAGE_WORKER_ENV]!) as [string, JsonValue];
const open = ((await import(isAbsolute(module) ? pathToFileURL(module).href : module)) as { default: OpenPageStore }).default;
const { store, attachments } = await open(input);
const sessions = new SessionCache();

const answer = ({ id: _id, ...request }: PageJob): Promise<unknown> => buildPage(store, request, { attachments }, sessions);

/** The session held is let go after this long without a job, so a server left open gives its memory back. */
const IDLE_MS = 5 * 60_000;
let idle: NodeJS.Timeout | undefined;

process.on("message", (job: PageJob) => {
  clearTimeout(idle);
  void answer(job).then(
    (value): PageReply => ({ id: job.id, ok: true, value }),
    (error: unknown): PageReply => ({ id: job.id, ok: false, code: isDshError(error) ? error.code : undefined, message: error instanceof Error ? error.message : String(error) }),
  ).then((reply) => {
    process.send!(reply);
    idle = setTimeout(() => sessions.forget(), IDLE_MS).unref();
  });
});
process.on("disconnect", () => void store.close().finally(() => process.exit(0)));
process.send!({ id: -1, ok: true, value: "ready" } satisfies PageReply);
