import { connect, createServer, type Socket } from "node:net";

/**
 * A loopback TCP proxy in front of a PostgreSQL server that can lose a connection at a chosen moment,
 * as a restart, a crashed pooler or a cut network does, for tests of what a client makes of it.
 */
export interface FaultyProxy {
  /** `url` with its host and port replaced by the proxy's. */
  readonly url: string;
  /** The next statement any connection sends (or the next `statements`) never reaches the server: the proxy closes that connection instead. */
  dropNextStatement(statements?: number): void;
  /** The next statement any connection sends runs on the server, but its reply is lost: the proxy closes the connection once the reply is complete. */
  loseNextReply(): void;
  /** Lets the next `statements` statements through before the next trap set: `passNext(3); loseNextReply()` loses a fourth's reply. */
  passNext(statements: number): void;
  /** Closes every connection and stops accepting new ones. */
  close(): Promise<void>;
}

type Trap = "pass" | "drop" | "lose-reply";

/** The server's messages on one connection, read as they arrive: how many `ReadyForQuery` messages it has sent. */
class ServerMessages {
  /** The start of a message not yet complete. */
  #rest = Buffer.alloc(0);
  ready = 0;

  /** Takes `chunk` in and counts the `ReadyForQuery` ('Z') messages it completes. */
  add(chunk: Buffer): void {
    const bytes = Buffer.concat([this.#rest, chunk]);
    let at = 0;
    while (at + 5 <= bytes.length) {
      const end = at + 1 + bytes.readInt32BE(at + 1);
      if (end > bytes.length) break;
      if (bytes[at] === 0x5a) this.ready++;
      at = end;
    }
    this.#rest = bytes.subarray(at);
  }
}

/** Starts a {@link FaultyProxy} for the server `url` names, on a free loopback port. */
export async function startFaultyProxy(url: string): Promise<FaultyProxy> {
  const target = new URL(url);
  const traps: Trap[] = [];
  const set = (trap: Trap, statements: number) => {
    for (let i = 0; i < statements; i++) traps.push(trap);
  };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const replies = new ServerMessages();
    // A statement is what a connection sends once the server said it is ready for one, until the server's next `ReadyForQuery`.
    let answered = 0;
    let losing = false;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk) => {
      if (replies.ready > answered) {
        answered = replies.ready;
        const trap = traps.shift();
        if (trap === "drop") return cut();
        losing = trap === "lose-reply";
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      replies.add(chunk);
      if (losing) {
        if (replies.ready > answered) cut();
        return;
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on("error", cut);
      socket.on("close", () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(url);
  proxied.port = String((server.address() as { port: number }).port);
  return {
    url: proxied.toString(),
    dropNextStatement: (statements = 1) => set("drop", statements),
    loseNextReply: () => set("lose-reply", 1),
    passNext: (statements) => set("pass", statements),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
