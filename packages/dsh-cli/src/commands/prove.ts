import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { readWitnessFile } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";
import { proveRequest } from "dsh-proof";
import { attachmentStore, dispatchSeqFlag } from "../session.js";
import { sessionRef, storedLinesOf } from "../store.js";

export const PROVE_USAGE = "dsh prove LOG --seq N --witness FILE -o FILE [--objects DIR] [--store URL]";

/**
 * `dsh prove`: writes a proof of the request dispatched at seq N — the lines it is rebuilt from, the
 * digests of the later lines up to the first signed head in the witness past it, that head, and the
 * attachment objects its wire bytes hold — which `dsh verify-proof` checks without the session.
 */
export async function proveCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { seq: { type: "string" }, witness: { type: "string" }, output: { type: "string", short: "o" }, objects: { type: "string" }, store: { type: "string" } },
  });
  const [reference] = positionals;
  if (reference === undefined || positionals.length > 1 || values.seq === undefined || values.witness === undefined || values.output === undefined) {
    throw new CliError(`usage: ${PROVE_USAGE}`, EXIT.usage);
  }
  const seq = dispatchSeqFlag(values.seq);
  const heads = await readWitnessFile(resolve(io.cwd, values.witness));
  const { stored, close } = await storedLinesOf(sessionRef(reference, values.store, io), io);
  try {
    const proof = await proveRequest(stored, seq, heads, attachmentStore(io.cwd, values.objects));
    const output = resolve(io.cwd, values.output);
    await writeFile(output, `${JSON.stringify(proof)}\n`, { flag: "wx", mode: 0o600 }).catch((error: NodeJS.ErrnoException) => {
      throw new CliError(error.code === "EEXIST" ? `${values.output} already exists` : `cannot write ${values.output}: ${error.code ?? error.message}`, EXIT.usage);
    });
    io.stderr.write(`dsh: wrote the proof of the request at seq ${seq} (${proof.request.provider} ${proof.request.model}, wire sha256 ${proof.request.wireSha256}) to ${output}\n`);
  } finally {
    await close();
  }
  return EXIT.ok;
}
