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
  /** Closes every connection and stops accepting new ones. */
  close(): Promise<void>;
}

type Trap = "drop" | "lose-reply";

/** Whether `bytes`, the server's messages from a connection's start, hold a complete `ReadyForQuery` after `from` bytes. */
function readyAfter(bytes: Buffer, from: number): boolean {
  let at = 0;
  while (at + 5 <= bytes.length) {
    const end = at + 1 + bytes.readInt32BE(at + 1);
    if (end > bytes.length) return false;
    if (bytes[at] === 0x5a && at >= from) return true; // 'Z'
    at = end;
  }
  return false;
}

/** Starts a {@link FaultyProxy} for the server `url` names, on a free loopback port. */
export async function startFaultyProxy(url: string): Promise<FaultyProxy> {
  const target = new URL(url);
  const traps: Trap[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    let replies = Buffer.alloc(0);
    let ready = false;
    let losing = -1;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk) => {
      // A statement is what a connection sends once the server said it is ready for one.
      if (ready && traps.length > 0 && losing < 0) {
        if (traps.shift() === "drop") return cut();
        losing = replies.length;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      replies = Buffer.concat([replies, chunk]);
      if (losing >= 0) {
        if (readyAfter(replies, losing)) cut();
        return;
      }
      ready ||= readyAfter(replies, 0);
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
    dropNextStatement: (statements = 1) => void traps.push(...Array.from({ length: statements }, (): Trap => "drop")),
    loseNextReply: () => void traps.push("lose-reply"),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
