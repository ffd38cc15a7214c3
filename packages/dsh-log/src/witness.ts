import { constants } from "node:fs";
import { open, readFile, type FileHandle } from "node:fs/promises";
import type { KeyObject } from "node:crypto";
import type { ChainHead } from "./chain.js";
import { LogError } from "./errors.js";
import { parseSignedHead, signHead, type SignedHead } from "./signed-head.js";

/**
 * Where a writer appends the heads it signs: a place the log's writer cannot quietly rewrite (a file
 * on another disk, a remote append-only service). Appends of one writer come in chain order.
 */
export interface HeadWitness {
  /** Stores one signed head; resolves once it is kept. */
  append(head: SignedHead): Promise<void>;
  /** Releases what the witness holds (optional). */
  close?(): Promise<void>;
}

/** What a writer signs its chain heads with: an Ed25519 private key, and the witness the signed heads go to. */
export interface HeadSigning {
  readonly key: KeyObject;
  readonly witness: HeadWitness;
}

const APPEND_FLAGS = constants.O_DSYNC === undefined ? "a" : constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC;

/**
 * A witness file: one signed head per line, appended durably (several sessions and writers may share
 * one file). Keep it where the log's writer cannot rewrite it, or copy it there.
 */
export class FileWitness implements HeadWitness {
  readonly path: string;
  #handle: Promise<FileHandle> | undefined;

  constructor(path: string) {
    this.path = path;
  }

  async append(head: SignedHead): Promise<void> {
    this.#handle ??= open(this.path, APPEND_FLAGS, 0o600);
    const handle = await this.#handle;
    const bytes = Buffer.from(`${JSON.stringify(head)}\n`);
    for (let offset = 0; offset < bytes.length; ) offset += (await handle.write(bytes, offset)).bytesWritten;
    if (APPEND_FLAGS === "a") await handle.datasync();
  }

  /** Closes the file; one that never opened (its failure was the append's to report) has nothing to close. */
  async close(): Promise<void> {
    const handle = this.#handle;
    this.#handle = undefined;
    await (await handle?.catch(() => undefined))?.close();
  }
}

/**
 * The signed heads in a witness file, in the order they were appended; a final line cut short (a crash
 * while appending) is left out, any other bad line is `LOG_CORRUPT` naming it. A missing file holds none.
 */
export async function readWitnessFile(path: string): Promise<SignedHead[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") throw new LogError("LOG_NOT_FOUND", `the witness ${path} does not exist`);
    throw error;
  }
  const lines = text.split("\n");
  lines.pop(); // what follows the last newline: nothing, or a line a crash cut short
  return lines.map((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new LogError("LOG_CORRUPT", `${path}, line ${i + 1}: unreadable JSON`);
    }
    return parseSignedHead(value, `${path}, line ${i + 1}`);
  });
}

/**
 * Signs a writer's chain heads and hands them to its witness off the commit path: while one append
 * to the witness runs, later heads wait and only the newest is signed and sent (it covers every event
 * before it). A witness failure is kept and refuses the writer's next commit.
 */
export class HeadWitnessQueue {
  readonly #signing: HeadSigning;
  #pending: ChainHead | undefined;
  #running: Promise<void> | undefined;
  #failure: LogError | undefined;

  constructor(signing: HeadSigning) {
    this.#signing = signing;
  }

  /** Throws the witness failure, if there was one: nothing more may be committed unwitnessed. */
  check(): void {
    if (this.#failure !== undefined) throw this.#failure;
  }

  /** Queues `head` to be signed and witnessed. */
  offer(head: ChainHead): void {
    this.#pending = head;
    this.#running ??= this.#run();
  }

  /** Waits until every offered head is witnessed; throws the witness failure, if there was one. */
  async drain(): Promise<void> {
    await this.#running;
    this.check();
  }

  async #run(): Promise<void> {
    while (this.#pending !== undefined && this.#failure === undefined) {
      const head = this.#pending;
      this.#pending = undefined;
      try {
        await this.#signing.witness.append(signHead(head, this.#signing.key));
      } catch (cause) {
        this.#failure = new LogError("LOG_WITNESS_FAILED", `session ${head.sessionId}: the witness refused the head at ${head.events} events: ${(cause as Error).message}`, { cause });
      }
    }
    this.#running = undefined;
  }
}
