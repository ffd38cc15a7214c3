import { generateKeyPairSync } from "node:crypto";
import { lstat, mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { keyIdOf } from "dsh-log";
import { CliError, EXIT } from "../cli-error.js";
import type { CliIo } from "../io.js";

export const KEYGEN_USAGE = "dsh keygen [FILE]";

/** Where `dsh keygen` puts a key pair unless told: inside dsh's own directory, which the agent's tools never see. */
export const DEFAULT_KEY_FILE = ".dsh/keys/writer.pem";

/** Refuses `path` when anything is there already, a dangling symlink included. */
async function refuseTaken(path: string): Promise<void> {
  const taken = await lstat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return false;
      throw new CliError(`cannot write ${path}: ${error.code ?? error.message}`, EXIT.usage);
    },
  );
  if (taken) throw new CliError(`${path} already exists: dsh keygen never writes over a file`, EXIT.usage);
}

/** Writes `text` to a new file (never over one), readable by its owner only when `secret`. */
async function writeNew(path: string, text: string, secret: boolean): Promise<void> {
  await writeFile(path, text, { flag: "wx", mode: secret ? 0o600 : 0o644 }).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(error.code === "EEXIST" ? `${path} already exists: dsh keygen never writes over a file` : `cannot write ${path}: ${error.code ?? error.message}`, EXIT.usage);
  });
}

/**
 * `dsh keygen`: a new Ed25519 key pair for signing session heads: FILE (default
 * `.dsh/keys/writer.pem`; the private key, PKCS#8 PEM, readable by its owner only) and FILE.pub (the
 * public key, SPKI PEM, to give to whoever verifies). Nothing is written when either is there already.
 */
export async function keygenCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, options: {} });
  if (positionals.length > 1) throw new CliError(`usage: ${KEYGEN_USAGE}`, EXIT.usage);
  const path = resolve(io.cwd, positionals[0] ?? DEFAULT_KEY_FILE);
  await refuseTaken(path);
  await refuseTaken(`${path}.pub`);
  if (positionals[0] === undefined) await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  await writeNew(path, privateKey.export({ type: "pkcs8", format: "pem" }).toString(), true);
  await writeNew(`${path}.pub`, publicKey.export({ type: "spki", format: "pem" }).toString(), false);
  io.stderr.write(`dsh: wrote the signing key ${path} (keep it secret) and its public key ${path}.pub (key id ${keyIdOf(publicKey)})\n`);
  return EXIT.ok;
}
