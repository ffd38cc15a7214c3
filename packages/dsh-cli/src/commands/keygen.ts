import { generateKeyPairSync } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { keyIdOf } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";

export const KEYGEN_USAGE = "dsh keygen FILE";

/** Writes `text` to a new file (never over one), readable by its owner only when `secret`. */
async function writeNew(path: string, text: string, secret: boolean): Promise<void> {
  await writeFile(path, text, { flag: "wx", mode: secret ? 0o600 : 0o644 }).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(error.code === "EEXIST" ? `${path} already exists` : `cannot write ${path}: ${error.code ?? error.message}`, EXIT.usage);
  });
}

/**
 * `dsh keygen`: a new Ed25519 key pair for signing session heads: FILE (the private key, PKCS#8 PEM,
 * readable by its owner only) and FILE.pub (the public key, SPKI PEM, to give to whoever verifies).
 */
export async function keygenCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: {} });
  const [file] = positionals;
  if (file === undefined || positionals.length > 1) throw new CliError(`usage: ${KEYGEN_USAGE}`, EXIT.usage);
  const path = resolve(io.cwd, file);
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  await writeNew(`${path}.pub`, publicKey.export({ type: "spki", format: "pem" }).toString(), false);
  await writeNew(path, privateKey.export({ type: "pkcs8", format: "pem" }).toString(), true);
  io.stderr.write(`dsh: wrote the signing key ${path} (keep it secret) and its public key ${path}.pub (key id ${keyIdOf(publicKey)})\n`);
  return EXIT.ok;
}
