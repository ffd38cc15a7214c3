import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FsAttachmentStore, putImage, readImage } from "dsh-attachments";

export async function main(): Promise<string> {
  const store = new FsAttachmentStore(await mkdtemp(join(tmpdir(), "dsh-objects-")));
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAAAAABX3VL4AAAADklEQVR4nGNoaGBoaAAABgYCASzBUNcAAAAASUVORK5CYII=", "base64");

  const ref = await putImage(store, png); // what the log records
  console.log(ref); // { digest: "sha256:…", byteLength: 71, mediaType: "image/png", width: 2, height: 2 }
  await readImage(store, ref); // verified bytes

  await writeFile(store.pathOf(ref.digest), Buffer.from("not the same bytes"));
  try {
    await readImage(store, ref);
  } catch (error) {
    console.log((error as { code: string }).code); // ATTACHMENT_CORRUPT
    return (error as { code: string }).code;
  }
  return "unreachable";
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
