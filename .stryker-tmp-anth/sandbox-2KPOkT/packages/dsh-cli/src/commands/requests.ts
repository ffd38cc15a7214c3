import { reconstructRequestStream } from "dsh-agent";
import { EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { wireBody } from "../providers.js";
import { readLogWithObjects } from "../session.js";

export const REQUESTS_USAGE = "dsh requests LOG [--wire] [--objects DIR] [--store URL]";

/**
 * `dsh requests`: every reconstructed loop request in dispatch order, one per line. A request the log
 * says never left the process carries `"sent":false` (with `--wire`, a line on stderr names it).
 */
export async function requestsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { log, attachments, flag: wire } = await readLogWithObjects(argv, io, "wire", REQUESTS_USAGE);
  for await (const rebuilt of reconstructRequestStream(log)) {
    const { turn, step, dispatchSeq, request, sent } = rebuilt;
    if (wire) {
      if (!sent) io.stderr.write(`request dispatched at seq ${dispatchSeq} was never sent (its step ended before any byte left the process)\n`);
      io.stdout.write(`${await wireBody(rebuilt, attachments)}\n`);
    } else {
      const { signal: _signal, ...body } = request;
      io.stdout.write(`${JSON.stringify({ turn, step, seq: dispatchSeq, ...(sent ? {} : { sent: false }), request: body })}\n`);
    }
  }
  return EXIT.ok;
}
