import { parseArgs } from "node:util";
import { reconstructRequests } from "dsh-agent";
import { serializeRequest } from "dsh-openai-compatible";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { dialectOf } from "../providers.js";
import { attachmentStore, readSession } from "../session.js";

export const REQUESTS_USAGE = "dsh requests LOG [--wire] [--objects DIR]";

/** `dsh requests`: every reconstructed loop request in dispatch order, one per line. */
export async function requestsCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { wire: { type: "boolean", default: false }, objects: { type: "string" } },
  });
  const [path] = positionals;
  if (path === undefined || positionals.length > 1) throw new CliError(`usage: ${REQUESTS_USAGE}`, EXIT.usage);
  const { log } = await readSession(io.cwd, path, io.stderr);
  const attachments = attachmentStore(io.cwd, values.objects);
  for (const { turn, step, dispatchSeq, request } of await reconstructRequests(log)) {
    if (values.wire) {
      io.stdout.write(`${await serializeRequest(request, { dialect: dialectOf(request.config.provider), attachments })}\n`);
    } else {
      const { signal: _signal, ...body } = request;
      io.stdout.write(`${JSON.stringify({ turn, step, seq: dispatchSeq, request: body })}\n`);
    }
  }
  return EXIT.ok;
}
