// The store module the PagePool tests give their children: the JSONL store and objects under a directory.
import { join } from "node:path";
import { FsAttachmentStore } from "dsh-attachments";
import { JsonlStore } from "dsh-log";
import type { OpenPageStore } from "../page-pool.js";

const open: OpenPageStore = async (input) => {
  const { dir } = input as { readonly dir: string };
  return { store: new JsonlStore(join(dir, "sessions")), attachments: new FsAttachmentStore(join(dir, "objects")) };
};
export default open;
