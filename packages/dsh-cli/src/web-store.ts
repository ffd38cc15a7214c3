// The store module `dsh web` gives its PagePool: each child opens the store in effect and the attachment objects.
import type { OpenPageStore } from "dsh-web-store";
import { attachmentStore } from "./session.js";
import { openStore } from "./store.js";

/** What `dsh web` hands each page worker. */
export interface WebStoreInput {
  readonly url: string;
  readonly cwd: string;
  readonly objects: string | null;
}

const openWebStore: OpenPageStore = async (input) => {
  const { url, cwd, objects } = input as unknown as WebStoreInput;
  return { store: await openStore(url, cwd), attachments: attachmentStore(cwd, objects ?? undefined) };
};
export default openWebStore;
