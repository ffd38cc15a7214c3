import { readImage, type AttachmentStore, type ImageAttachmentRef } from "dsh-attachments";
import { LlmError } from "./errors.js";
import type { Message } from "./messages.js";

/**
 * An image's bytes in base64, read (and checked) from the attachment store, for adapters that send
 * images inline. Without a store it is `LLM_ATTACHMENT`, not retryable.
 */
export async function imageBase64(attachments: AttachmentStore | undefined, image: ImageAttachmentRef): Promise<string> {
  if (attachments === undefined) throw new LlmError("LLM_ATTACHMENT", `image ${image.digest} cannot be sent: no attachment store was given`);
  return Buffer.from(await readImage(attachments, image)).toString("base64");
}

/**
 * Whether `message` holds an image (user and tool messages can). Its wire form is read and verified
 * from the attachment store at every serialization, so adapters never memoize it.
 */
export function holdsImage(message: Message): boolean {
  return (message.role === "user" || message.role === "tool") && message.content.some((block) => block.type === "image");
}

/**
 * The image references `messages` carry (images live in user and tool messages), each distinct
 * reference once, in order of first appearance. Two references to the same bytes with different
 * metadata are both kept: each claim is checked against the bytes on its own.
 */
export function messageImages(messages: Iterable<Message>): ImageAttachmentRef[] {
  const refs = new Map<string, ImageAttachmentRef>();
  for (const message of messages) {
    if (message.role !== "user" && message.role !== "tool") continue;
    for (const block of message.content) {
      if (block.type !== "image") continue;
      const { digest, mediaType, byteLength, width, height } = block.image;
      const key = `${digest} ${mediaType} ${byteLength} ${width} ${height}`;
      if (!refs.has(key)) refs.set(key, block.image as ImageAttachmentRef);
    }
  }
  return [...refs.values()];
}
