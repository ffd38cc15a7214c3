import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DshError, createFileDurably, isDshError } from "dsh-base";

// Each package subclasses the base once, with its own stable codes.
type NoteErrorCode = "NOTE_EMPTY";
class NoteError extends DshError<NoteErrorCode> {
  override name = "NoteError";
}

export async function main(): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), "dsh-base-")), "note.txt");
  console.log(await createFileDurably(path, "first\n")); // created: written, fsynced, linked into place
  console.log(await createFileDurably(path, "second\n")); // exists: never replaced
  try {
    throw new NoteError("NOTE_EMPTY", "a note needs text");
  } catch (error) {
    if (isDshError(error, "NOTE_EMPTY")) console.log(`${error.name} [${error.code}]: ${error.message}`);
  }
  return readFile(path, "utf8");
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
