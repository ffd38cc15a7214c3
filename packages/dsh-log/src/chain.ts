import * as nodeCrypto from "node:crypto";
import type { SessionInfo } from "./store.js";

/** Node's one-shot hash (20.12 and later): about half the cost of a hash object for a short line. */
const oneShot = (nodeCrypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: "buffer") => Buffer }).hash;

function sha256(data: string | Uint8Array): Buffer {
  return oneShot === undefined ? nodeCrypto.createHash("sha256").update(data).digest() : oneShot("sha256", data, "buffer");
}

/** How many bytes a chain link has (a SHA-256 digest). */
export const LINK_BYTES = 32;

/** Where a session's chain stands after its first `events` events: `head` is the last link, in hex. */
export interface ChainHead {
  readonly sessionId: string;
  readonly events: number;
  readonly head: string;
}

/**
 * The link before a session's first event: a hash of which session it is (its id, creation time and,
 * for a fork, its parent), so two sessions with the same lines never share a chain.
 */
export function chainGenesis(info: SessionInfo): Buffer {
  const { sessionId, createdAt, parent } = info;
  const identity = parent === undefined ? { sessionId, createdAt } : { sessionId, createdAt, parent: { sessionId: parent.sessionId, seedLength: parent.seedLength } };
  return sha256(`dsh-chain/1\n${JSON.stringify(identity)}`);
}

/** The SHA-256 of one stored event line (its UTF-8 bytes, without a newline). */
export function lineDigest(line: string): Buffer {
  return sha256(line);
}

/** The link of an event: the hash of the link before it and its line's digest, so an edit anywhere changes every later link. */
export function nextLink(previous: Uint8Array, digest: Uint8Array): Buffer {
  return sha256(Buffer.concat([previous, digest], LINK_BYTES * 2));
}

/**
 * A session's hash chain as its writer extends it: the store layer links every line it commits, so no
 * writer can leave one out. Each link is `sha256(previous link ‖ sha256(line))`, starting from
 * {@link chainGenesis}; the same lines give the same links on every store.
 */
export class SessionChain {
  readonly sessionId: string;
  #link: Buffer;
  #events: number;

  constructor(sessionId: string, link: Buffer, events: number) {
    this.sessionId = sessionId;
    this.#link = link;
    this.#events = events;
  }

  /** The chain of a session with no events yet. */
  static start(info: SessionInfo): SessionChain {
    return new SessionChain(info.sessionId, chainGenesis(info), 0);
  }

  /** The chain of a stored session that holds `events` events, going on from its last stored link (none when it has no events). */
  static after(info: SessionInfo, lastLink: Buffer | undefined, events: number): SessionChain {
    return new SessionChain(info.sessionId, lastLink ?? chainGenesis(info), events);
  }

  /** The links of the next events' `lines`, in order; the chain then stands after them. */
  extend(lines: readonly string[]): Buffer[] {
    return lines.map((line) => {
      this.#link = nextLink(this.#link, lineDigest(line));
      this.#events++;
      return this.#link;
    });
  }

  /** Where the chain stands now. */
  get head(): ChainHead {
    return { sessionId: this.sessionId, events: this.#events, head: this.#link.toString("hex") };
  }
}
