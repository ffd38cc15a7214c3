import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback proxy in front of a real provider that records every request body and response status. */
export interface RecordingProxy {
  readonly url: string;
  readonly exchanges: readonly { readonly body: string; readonly status: number }[];
  close(): Promise<void>;
}

/** Starts a proxy that forwards `POST <path>` to `upstream + path` (e.g. `https://api.deepseek.com`) and streams the answer back. */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const exchanges: { body: string; status: number }[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
      // The credentials and API version headers of either wire API pass through.
      for (const name of ["authorization", "x-api-key", "anthropic-version"]) {
        const value = request.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const answer = await fetch(`${upstream}${request.url ?? ""}`, { method: "POST", headers, body });
      exchanges.push({ body, status: answer.status });
      response.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      if (answer.body !== null) for await (const chunk of answer.body) response.write(chunk);
      response.end();
    })().catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exchanges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
