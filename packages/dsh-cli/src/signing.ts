import type { KeyObject } from "node:crypto";
import { open, readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { FileWitness, publicKeyFromPem, readWitnessFile, signingKeyFromPem, type HeadSigning, type WitnessCheck } from "dsh-log";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";

/** The `parseArgs` options of commands that write a session: a signing key and the witness its heads go to. */
export const SIGNING_OPTIONS = { "signing-key": { type: "string" }, witness: { type: "string" } } as const;
export const SIGNING_USAGE = "[--signing-key FILE --witness FILE]";

/** A writer's signing key and its witness file, which `close` releases once the log is closed. */
export interface CliSigning extends HeadSigning {
  readonly witness: FileWitness;
}

async function readKeyFile(path: string, io: CliIo, what: string): Promise<Buffer> {
  try {
    return await readFile(resolve(io.cwd, path));
  } catch (error) {
    throw new CliError(`cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, EXIT.usage);
  }
}

/** The two paths of a pair of options that go together: both, neither (`undefined`), or a usage error saying why. */
function bothOrNeither(first: string | undefined, second: string | undefined, why: string): readonly [string, string] | undefined {
  if (first === undefined && second === undefined) return undefined;
  if (first === undefined || second === undefined) throw new CliError(why, EXIT.usage);
  return [first, second];
}

/** The signing a writer's `--signing-key` and `--witness` ask for (both or neither), or `undefined`; a key others can read is refused, as ssh refuses one. */
export async function signingOf(values: { readonly "signing-key"?: string | undefined; readonly witness?: string | undefined }, io: CliIo): Promise<CliSigning | undefined> {
  const paths = bothOrNeither(values["signing-key"], values.witness, "--signing-key and --witness go together: the signed heads need a witness, and a witness needs a key");
  if (paths === undefined) return undefined;
  const [keyPath, witnessPath] = paths;
  const pem = await readKeyFile(keyPath, io, "signing key");
  const { mode } = await stat(resolve(io.cwd, keyPath));
  if ((mode & 0o077) !== 0) {
    throw new CliError(`the signing key ${keyPath} can be read by others (mode ${(mode & 0o777).toString(8)}): make it yours alone (chmod 600 ${keyPath})`, EXIT.usage);
  }
  const key = signingKeyFromPem(pem);
  // The witness is written off the commit path: a file that cannot be written is refused before any turn spends tokens.
  const probe = await open(resolve(io.cwd, witnessPath), "a", 0o600).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot write the witness ${witnessPath}: ${error.code ?? error.message}`, EXIT.usage);
  });
  await probe.close();
  return { key, witness: new FileWitness(resolve(io.cwd, witnessPath)) };
}

/** The witness check `--public-key` and `--witness` ask for (both or neither), or `undefined`. */
export async function witnessCheckOf(values: { readonly "public-key"?: readonly string[] | undefined; readonly witness?: string | undefined }, io: CliIo): Promise<WitnessCheck | undefined> {
  const keyPaths = values["public-key"] ?? [];
  const paths = bothOrNeither(keyPaths[0], values.witness, "--public-key and --witness go together: the witness's heads are checked with the key");
  if (paths === undefined) return undefined;
  return { heads: await readWitnessFile(resolve(io.cwd, paths[1])), publicKey: await publicKeysOf(keyPaths, io) };
}

/** The public keys `--public-key` names (repeated when keys were rotated). */
export async function publicKeysOf(paths: readonly string[], io: CliIo): Promise<KeyObject[]> {
  const keys: KeyObject[] = [];
  for (const path of paths) keys.push(publicKeyFromPem(await readKeyFile(path, io, "public key")));
  return keys;
}
