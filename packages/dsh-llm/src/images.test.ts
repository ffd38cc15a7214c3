import { describe, expect, it } from "vitest";
import { MemoryAttachmentStore, putImage, type ImageAttachmentRef } from "dsh-attachments";
import { makePng } from "dsh-testkit";
import { holdsImage, imageBase64, messageImages } from "./images.js";
import type { Message } from "./messages.js";

const ref = (digit: string, width = 4): ImageAttachmentRef => ({ digest: `sha256:${digit.repeat(64)}`, mediaType: "image/png", byteLength: 70, width, height: 3 });
const image = (r: ImageAttachmentRef) => ({ type: "image" as const, image: r });

describe("messageImages", () => {
  it("lists the images of user and tool messages once each, in order of first appearance", () => {
    const a = ref("a");
    const b = ref("b");
    const messages: Message[] = [
      { role: "system", content: "look", source: "system-prompt" },
      { role: "user", content: [{ type: "text", text: "see" }, image(b)], source: "user" },
      { role: "assistant", content: [{ type: "text", text: "ok" }], source: "model" },
      { role: "tool", callId: "c1", toolName: "shot", content: [image(a), image(b)], isError: false, source: "tool" },
      { role: "user", content: [image({ ...a })], source: "user" },
    ];
    const images = messageImages(messages);
    // The first reference of each image is the one kept, not an equal later copy.
    expect(images).toHaveLength(2);
    expect(images[0]).toBe(b);
    expect(images[1]).toBe(a);
  });

  it("keeps two references to the same bytes that claim different metadata", () => {
    const small = ref("c", 4);
    const wide = ref("c", 8);
    expect(messageImages([{ role: "user", content: [image(small), image(wide), image(small)], source: "user" }])).toEqual([small, wide]);
  });

  it("is empty for a conversation without images", () => {
    expect(messageImages([{ role: "user", content: [{ type: "text", text: "hi" }], source: "user" }])).toEqual([]);
  });
});

describe("holdsImage", () => {
  it("is true only for a user or tool message with an image block", () => {
    const text = { type: "text" as const, text: "x" };
    expect(holdsImage({ role: "user", content: [text, image(ref("a"))], source: "user" })).toBe(true);
    expect(holdsImage({ role: "tool", callId: "c", toolName: "t", content: [image(ref("a"))], isError: false, source: "tool" })).toBe(true);
    expect(holdsImage({ role: "user", content: [text], source: "user" })).toBe(false);
    expect(holdsImage({ role: "tool", callId: "c", toolName: "t", content: [], isError: false, source: "tool" })).toBe(false);
    expect(holdsImage({ role: "assistant", content: [text], source: "model" })).toBe(false);
    expect(holdsImage({ role: "system", content: "x", source: "system-prompt" })).toBe(false);
  });
});

describe("imageBase64", () => {
  it("reads the image's checked bytes from the store as base64", async () => {
    const store = new MemoryAttachmentStore();
    const png = makePng(2, 2);
    const stored = await putImage(store, png);
    expect(await imageBase64(store, stored)).toBe(Buffer.from(png).toString("base64"));
  });

  it("is LLM_ATTACHMENT, not retryable, without a store", async () => {
    const missing = ref("d");
    await expect(imageBase64(undefined, missing)).rejects.toMatchObject({
      code: "LLM_ATTACHMENT",
      retryable: false,
      message: `image ${missing.digest} cannot be sent: no attachment store was given`,
    });
  });
});
