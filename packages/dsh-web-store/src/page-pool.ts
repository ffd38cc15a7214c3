import { fork, type ChildProcess } from "node:child_process";
import type { AttachmentStore } from "dsh-attachments";
import type { SessionStore } from "dsh-log";
import type { JsonValue } from "dsh-llm";
import { WebError } from "dsh-web";
import type { PageBuilder, PageRequest } from "./page-jobs.js";

/** A page request as sent to a child, numbered so its reply can be matched. */
export type PageJob = PageRequest & { readonly id: number };

/** A child's answer to a job (`id` -1: it is ready). */
export type PageReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly code: string | undefined; readonly message: string };

/** The environment variable that hands a page worker its store module and that module's input. */
export const PAGE_WORKER_ENV = "DSH_PAGE_WORKER";

/**
 * The default export of a page pool's store module: in each child, opens the store (and the
 * attachment store) the pages are built from, given the pool's `input`.
 */
export type OpenPageStore = (input: JsonValue) => Promise<{ readonly store: SessionStore; readonly attachments: AttachmentStore }>;

/** Options of {@link PagePool}. */
export interface PagePoolOptions {
  /** The module (a file URL or path) whose default export, an {@link OpenPageStore}, each child calls. */
  readonly module: URL | string;
  /** What the module's function is given: JSON, handed over in the environment, never in the argument list others can read. */
  readonly input?: JsonValue;
  /** How many children build pages at once (default 2). */
  readonly size?: number;
}

interface Builder {
  readonly child: ChildProcess;
  readonly ready: Promise<void>;
  busy: boolean;
  /** The session this child served last: it keeps that session read and measured. */
  lastSession: string | undefined;
}

/** How the child entry runs: the built `page-worker.js` beside this module, or the source through tsx (in this repository). */
function entry(): { readonly path: string; readonly execArgv: string[] } {
  const fromSource = import.meta.url.endsWith(".ts");
  return {
    path: new URL(fromSource ? "./page-worker.ts" : "./page-worker.js", import.meta.url).pathname,
    execArgv: fromSource ? ["--conditions=dsh-source", "--import", "tsx"] : [],
  };
}

/**
 * A {@link PageBuilder} that builds pages in up to `size` child processes, one job each at a time, so
 * reading and rendering a large session never holds the server's event loop and other pages are
 * answered meanwhile. Children start on first use, open the store with your module, and are replaced
 * if one dies.
 */
export class PagePool implements PageBuilder {
  readonly #args: string;
  readonly #size: number;
  readonly #builders: Builder[] = [];
  readonly #waiting: (() => void)[] = [];
  #next = 0;

  constructor(options: PagePoolOptions) {
    const module = options.module instanceof URL ? options.module.href : options.module;
    this.#args = JSON.stringify([module, options.input ?? null]);
    this.#size = options.size ?? 2;
  }

  /**
   * Runs `job` in a free child, for a session's page or request the child that last served that
   * session when that one is free (it keeps the session read and measured); a failure comes back as
   * the `WebError` it was, or as an error with the child's message.
   */
  async run<T>(job: PageRequest): Promise<T> {
    const session = job.kind === "list-item" ? undefined : job.sessionId;
    const builder = await this.#free(session);
    if (session !== undefined) builder.lastSession = session;
    const id = this.#next++;
    try {
      await builder.ready;
      return await new Promise<T>((resolve, reject) => {
        const onMessage = (reply: PageReply) => {
          if (reply.id !== id) return;
          done();
          if (reply.ok) resolve(reply.value as T);
          else reject(reply.code?.startsWith("WEB_") === true ? new WebError(reply.code as "WEB_NOT_FOUND", reply.message) : new Error(reply.message));
        };
        const onExit = (code: number | null) => {
          done();
          reject(new Error(`the page worker stopped (exit ${code ?? "by signal"}) while building this page`));
        };
        const done = () => {
          builder.child.off("message", onMessage);
          builder.child.off("exit", onExit);
        };
        builder.child.on("message", onMessage);
        builder.child.once("exit", onExit);
        builder.child.send({ ...job, id } satisfies PageJob);
      });
    } finally {
      // A child that died during the job is replaced when the next job looks for a free one.
      builder.busy = false;
      this.#waiting.shift()?.();
    }
  }

  /** Stops every child. */
  async close(): Promise<void> {
    await Promise.all(
      this.#builders.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.disconnect();
        await exited;
      }),
    );
    this.#builders.length = 0;
  }

  /** A child not busy with a job (the one that last served `session` first), started if there are fewer than `size`, else the first to become free. */
  async #free(session: string | undefined): Promise<Builder> {
    for (;;) {
      // A child that died while idle is replaced, never handed a job it cannot answer.
      for (const dead of this.#builders.filter(({ child }) => child.exitCode !== null || child.signalCode !== null)) {
        this.#builders.splice(this.#builders.indexOf(dead), 1);
      }
      const idle = this.#builders.find((builder) => !builder.busy && session !== undefined && builder.lastSession === session) ?? this.#builders.find((builder) => !builder.busy);
      if (idle !== undefined) {
        idle.busy = true;
        return idle;
      }
      if (this.#builders.length < this.#size) {
        const started = this.#start();
        started.busy = true;
        this.#builders.push(started);
        return started;
      }
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
  }

  #start(): Builder {
    const { path, execArgv } = entry();
    // The input may hold a password (a store URL): it goes in the environment (readable by this user only), never in the arguments others can list.
    const child = fork(path, [], { execArgv, env: { ...process.env, [PAGE_WORKER_ENV]: this.#args }, stdio: ["ignore", "ignore", "inherit", "ipc"] });
    const ready = new Promise<void>((resolve, reject) => {
      const onMessage = (reply: PageReply) => {
        if (reply.id !== -1) return;
        child.off("message", onMessage);
        resolve();
      };
      child.on("message", onMessage);
      child.once("exit", (code) => reject(new Error(`the page worker could not start (exit ${code ?? "by signal"})`)));
    });
    ready.catch(() => undefined);
    return { child, ready, busy: false, lastSession: undefined };
  }
}
