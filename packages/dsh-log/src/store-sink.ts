import { BatchingSink } from "./batching-sink.js";
import { SessionChain } from "./chain.js";
import { LogError } from "./errors.js";
import type { LogEvent } from "./event.js";
import type { SessionInfo } from "./store.js";
import { eventLine } from "./session-lines.js";
import { HeadWitnessQueue, type HeadSigning } from "./witness.js";

/** One batch as a store commits it: the events, their stored lines, and their chain links (absent for a session written before chains). */
export interface LineBatch {
  readonly events: readonly LogEvent[];
  readonly lines: readonly string[];
  readonly links: readonly Buffer[] | undefined;
}

/** A new session's chain and its first commit (a fork's or a copy's events, or none), linked from the session's genesis. */
export function firstCommit(info: SessionInfo, events: readonly LogEvent[]): { readonly chain: SessionChain; readonly batch: LineBatch } {
  const chain = SessionChain.start(info);
  const lines = events.map(eventLine);
  return { chain, batch: { events, lines, links: chain.extend(lines) } };
}

/** What a session's writer links and signs with: its chain (absent for a session written before chains) and, optionally, a signing key and witness. */
export interface WriterChain {
  readonly chain: SessionChain | undefined;
  readonly signing?: HeadSigning | undefined;
}

/**
 * The sink every store's writer appends through: each batch's lines are linked into the session's
 * chain here, in the store layer, before `commit` stores them, so no writer can leave a line out; with
 * signing, the head after each commit is signed and witnessed (see {@link HeadWitnessQueue}), and
 * `close` waits for the witness. The store hands it the chain with {@link begin} once the session is
 * loaded, before the log can append.
 */
export class StoreSink extends BatchingSink {
  #writer: { readonly chain: SessionChain | undefined; readonly witness: HeadWitnessQueue | undefined } | undefined;

  constructor(commit: (batch: LineBatch) => Promise<void>, release: () => Promise<void>) {
    super(
      async (events) => {
        const writer = this.#writer;
        if (writer === undefined) throw new LogError("LOG_SINK_FAILED", "the store appended before the session's chain was known");
        writer.witness?.check();
        const lines = events.map(eventLine);
        await commit({ events, lines, links: writer.chain?.extend(lines) });
        if (writer.chain !== undefined) writer.witness?.offer(writer.chain.head);
      },
      async () => {
        try {
          await this.#writer?.witness?.drain();
        } finally {
          await release();
        }
      },
    );
  }

  /**
   * Starts the writer where the stored session ends. A session without a chain cannot be signed
   * (`LOG_UNSUPPORTED_FORMAT`); with `witnessNow`, the head is witnessed at once (a new session).
   */
  begin(writer: WriterChain, witnessNow = false): void {
    const { chain, signing } = writer;
    if (signing !== undefined && chain === undefined) {
      throw new LogError("LOG_UNSUPPORTED_FORMAT", "this session was written before hash chains, so its appends cannot be signed: copy it (dsh copy) into a chained session first");
    }
    const witness = signing === undefined ? undefined : new HeadWitnessQueue(signing);
    this.#writer = { chain, witness };
    if (witnessNow && chain !== undefined) witness?.offer(chain.head);
  }
}
