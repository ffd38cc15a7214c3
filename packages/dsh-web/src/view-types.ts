// The JSON the web app renders: built on the server (or into a static page), read by the browser.

/** A session in the list. */
export interface SessionListItem {
  readonly id: string;
  readonly createdAt: number;
  /** `provider/model` of every request, in order of first use. */
  readonly models: readonly string[];
  readonly turns: number;
  readonly requests: number;
  /** Cache-read tokens over prompt tokens of the requests that reported usage; `null` without usage. */
  readonly cacheReadShare: number | null;
  /** The start of the session's first user message. */
  readonly prompt?: string;
  /** The name of the file the session lives in (JSONL stores). */
  readonly file?: string;
  /** The session it was forked from; `broken` says why that lineage points nowhere (the parent is gone, or shorter than the seed). */
  readonly parent?: { readonly id: string; readonly seedLength: number; readonly broken?: string };
  /** The session whose subagent call (`callId`) it ran, when it is a subagent's. */
  readonly subagentOf?: { readonly id: string; readonly callId: string };
  /** How deep it sits in the list's tree of subagent sessions (0 at the top; set by the backend's list). */
  readonly depth?: number;
  /** Why the session could not be read (a damaged log): it is listed, not opened. */
  readonly problem?: string;
}

/** What a timeline entry is, for its icon and filtering. */
export type TimelineKind = "turn" | "step" | "header" | "request" | "message" | "tool" | "compaction" | "trim" | "retry" | "interruption" | "fork" | "other";

/** One logged event as the timeline shows it. */
export interface TimelineEntry {
  readonly seq: number;
  readonly type: string;
  readonly time: number;
  readonly kind: TimelineKind;
  /** One line for a person. */
  readonly label: string;
  readonly turn?: number;
  /** For `request/dispatch`: the 1-based request number. */
  readonly request?: number;
  /** Another session the event links: the subagent session a tool result names, or the parent (and its answer's seq) a subagent session's first event names. */
  readonly linked?: { readonly sessionId: string; readonly seq?: number; readonly as: "subagent" | "parent" };
  /** The event's data, pretty-printed (clipped). */
  readonly detail: string;
}

/** A surface node of a request that the previous request did not hold. */
export interface NodeView {
  readonly node: number;
  /** The seq of the event that is this node (an append or a replacement). */
  readonly seq: number;
  readonly role: string;
  readonly status: "appended" | "replaced";
  /** The node as text (clipped). */
  readonly text: string;
}

/** An image a request carries, shown only once its bytes matched the recorded digest. */
export interface ImageView {
  readonly digest: string;
  readonly mediaType: string;
  /** Where the verified bytes are (a URL or a data URL); absent when verification failed. */
  readonly src?: string;
  readonly error?: string;
}

/** The provider's verdict on a request's cache (`hit`, `miss` with its reason, …) beside dsh's attribution: `agree`, `disagree`, `provider-only`, `no-verdict`. */
export interface ProviderVerdictView {
  readonly verdict: string;
  readonly reason?: string;
  readonly missedTokens?: number;
  readonly agreement: string;
}

/** One dispatched request. */
export interface RequestView {
  readonly number: number;
  readonly turn: number;
  readonly step: number;
  readonly dispatchSeq: number;
  readonly provider: string;
  readonly model: string;
  /** The reason of the header snapshot written for this request, if one was. */
  readonly header?: { readonly seq: number; readonly reason: string; readonly changes: readonly string[] };
  /** Prompt tokens split into read from the cache, repeated from the previous request but not read, and new. */
  readonly tokens: { readonly prompt: number; readonly cacheRead: number; readonly repeated: number; readonly fresh: number; readonly reported: boolean };
  /** The nodes this request holds and the previous one did not: appended, or replacements. */
  readonly nodes: readonly NodeView[];
  /** Nodes of the previous request that this one holds as they were. */
  readonly kept: number;
  /** Nodes of the previous request that this one no longer has. */
  readonly removed: number;
  /**
   * A cache break: this request does not extend the previous one; the logged events that explain it,
   * how many of the previous request's prompt tokens it still repeats, and whether that is nine
   * tenths or more of them (`minor`: the change sits near the end, and the rest can still be read).
   */
  readonly break?: { readonly explanations: readonly string[]; readonly repeatedTokens: number; readonly previousTokens: number; readonly minor: boolean };
  /** Why repeated prefix was not read (Messages API). */
  readonly misses: readonly string[];
  /** The provider's own diagnosis of this request's cache, when the session asked for one, and whether the log agrees. */
  readonly diagnosis?: ProviderVerdictView;
  /** The exact wire body when the page carries it (a static page) and the provider's serializer is known: all of it, or its start when longer. A live page asks for it when opened. */
  readonly wire?: string;
  /** The whole wire body's size in bytes. */
  readonly wireBytes?: number;
  readonly images: readonly ImageView[];
}

/** A request's exact wire body as the page shows it on demand: all of it, or its start when longer. */
export interface RequestWire {
  readonly wire: string;
  /** The whole wire body's size in bytes. */
  readonly wireBytes: number;
}

/** The model selection a continued turn starts from: restored from the log, adapter-held values left out. */
export interface ComposerView {
  readonly provider: string;
  readonly model: string;
  /** Explicit choices the log holds besides provider and model (never adapter defaults). */
  readonly explicit: Readonly<Record<string, unknown>>;
}

/** A part of the session shown at once: its first and last seq, and the first and last turn its events name. */
export interface TimelinePage {
  readonly from: number;
  readonly to: number;
  readonly firstTurn?: number;
  readonly lastTurn?: number;
}

/** Which page to show: by its number (from 1), or the one holding an event. */
export type PageChoice = { readonly page: number } | { readonly seq: number };

/** A request that breaks the cache, wherever its page is. */
export interface BreakLink {
  readonly number: number;
  readonly dispatchSeq: number;
}

/** Everything the session page shows: the session's summary and, of one page of its timeline, the events and requests. */
export interface SessionView {
  readonly session: SessionListItem;
  /** Every page of the session; one unless the page was built with a page size. */
  readonly pages: readonly TimelinePage[];
  /** The number (from 1) of the page shown. */
  readonly page: number;
  /** The events of the page shown. */
  readonly timeline: readonly TimelineEntry[];
  /** The requests dispatched in the page shown. */
  readonly requests: readonly RequestView[];
  /** Every request of the session that breaks the cache. */
  readonly breaks: readonly BreakLink[];
  /** Seqs a fork can start from (ends of closed turns). */
  readonly forkPoints: readonly number[];
  /** Present when the page can continue the session. */
  readonly composer?: ComposerView;
}

/** A line of the stream answering a continue request (newline-delimited JSON). */
export type ContinueLine =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool"; readonly name: string }
  | { readonly type: "done"; readonly turn: number; readonly reason: string }
  | { readonly type: "error"; readonly message: string };

/** What "what if" asks for: the seq to change at, and one change (a new system prompt, or another model). */
export type WhatIfInput = { readonly at: number } & ({ readonly system: string } | { readonly model: string });

/** One request's modelled tokens and cost in a what-if comparison; `costUsd` is `null` without a price. */
export interface WhatIfCells {
  readonly promptTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Prompt tokens neither read nor written. */
  readonly inputTokens: number;
  readonly costUsd: number | null;
}

/** The recorded session beside the same session with one change, request by request (`dsh what-if`'s comparison). */
export interface WhatIfView {
  readonly change: string;
  /** The turn start the session was forked at. */
  readonly fork: number;
  readonly rows: readonly {
    readonly turn: number;
    readonly step: number;
    readonly recorded: WhatIfCells | null;
    readonly whatIf: WhatIfCells | null;
    /** The break of the what-if request and its logged causes, if it breaks. */
    readonly note: string;
  }[];
  readonly totals: { readonly recorded: WhatIfCells; readonly whatIf: WhatIfCells };
  readonly delta: { readonly cacheReadTokens: number; readonly inputTokens: number; readonly costUsd: number };
  /** What is exact and what is modelled, in a reader's words. */
  readonly honesty: readonly string[];
}
