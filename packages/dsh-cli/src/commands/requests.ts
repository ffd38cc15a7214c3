import { parseArgs } from "node:util";
import { reconstructRequestStream, requestDispatchEvent } from "dsh-agent";
import type { EventLog } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { wireBody } from "dsh-wire";
import { dispatchSeqFlag, loadLogWithObjects } from "../session.js";

export const REQUESTS_USAGE = "dsh requests LOG [--wire] [--seq N | --last] [--objects DIR] [--store URL]";

/**
 * `dsh requests`: every reconstructed loop request in dispatch order, one per line, or only the one
 * dispatched at `--seq N` (or the last, `--last`). A request the log says never left the process
 * carries `"sent":false` (with `--wire`, a line on stderr names it).
 */
export async function requestsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { wire: { type: "boolean", default: false }, seq: { type: "string" }, last: { type: "boolean", default: false }, objects: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1 || (values.seq !== undefined && values.last)) throw new CliError(`usage: ${REQUESTS_USAGE}`, EXIT.usage);
  const asked = values.seq === undefined ? undefined : dispatchSeqFlag(values.seq);
  const { log, attachments } = await loadLogWithObjects(reference, values, io);
  const seq = values.last ? lastDispatch(log) : asked;
  if (values.last && seq === undefined) throw new CliError("the log holds no request", EXIT.failure);
  let printed = 0;
  for await (const rebuilt of reconstructRequestStream(log, seq === undefined ? {} : { only: (dispatch) => dispatch.dispatchSeq === seq })) {
    const { turn, step, dispatchSeq, request, sent } = rebuilt;
    printed++;
    if (values.wire) {
      if (!sent) io.stderr.write(`request dispatched at seq ${dispatchSeq} was never sent (its step ended before any byte left the process)\n`);
      io.stdout.write(`${await wireBody(rebuilt, attachments)}\n`);
    } else {
      const { signal: _signal, ...body } = request;
      io.stdout.write(`${JSON.stringify({ turn, step, seq: dispatchSeq, ...(sent ? {} : { sent: false }), request: body })}\n`);
    }
  }
  if (seq !== undefined && printed === 0) throw new CliError(`seq ${seq} is not where a request was dispatched (dsh requests LOG lists them)`, EXIT.usage);
  return EXIT.ok;
}

/** The seq of the log's last `request/dispatch`, found from the end; `undefined` when it has none. */
function lastDispatch(log: EventLog): number | undefined {
  for (let seq = log.length - 1; seq >= 0; seq--) if (requestDispatchEvent.is(log.get(seq)!)) return seq;
  return undefined;
}
