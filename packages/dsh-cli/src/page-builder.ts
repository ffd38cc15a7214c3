// The child process that builds `dsh web`'s session pages and list rows, so reading and rendering a
// large session never holds the server's event loop. Started by PagePool with the store's URL, the
// working directory and the objects folder; answers one job at a time over IPC.
import { isDshError } from "dsh-base";
import { SessionCache, buildPage } from "dsh-web-store";
import { PAGE_BUILDER_ENV, type PageJob, type PageReply } from "./page-pool.js";
import { attachmentStore } from "./session.js";
import { openStore } from "./store.js";

const [url, cwd, objects] = JSON.parse(process.env[PAGE_BUILDER_ENV]!) as [string, string, string | null];
const store = await openStore(url, cwd);
const sessions = new SessionCache();

const attachments = attachmentStore(cwd, objects ?? undefined);
const answer = ({ id: _id, ...request }: PageJob): Promise<unknown> => buildPage(store, request, { attachments }, sessions);

/** The session held is let go after this long without a job, so a `dsh web` left open gives its memory back. */
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
