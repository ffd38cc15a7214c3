import type { ImageAttachmentRef } from "dsh-attachments";
import type { Message } from "./messages.js";

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
