import { MemoryAttachmentStore } from "dsh-attachments";
import { makePng } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { toolOutcome } from "./results.js";

const png = Buffer.from(makePng(2, 3)).toString("base64");

describe("toolOutcome", () => {
  it("keeps text as is and an image in the attachment store, by reference", async () => {
    const store = new MemoryAttachmentStore();
    const outcome = await toolOutcome({ content: [{ type: "text", text: "a" }, { type: "image", data: png, mimeType: "image/png" }] }, store);
    expect(outcome).toEqual({ content: [{ type: "text", text: "a" }, { type: "image", image: expect.objectContaining({ mediaType: "image/png", width: 2, height: 3 }) }], isError: false, additionalContexts: [] });
    const image = outcome.content[1];
    expect(image?.type === "image" && (await store.get(image.image.digest)) !== undefined).toBe(true);
  });

  it("describes an image it cannot keep, and content it has no block for", async () => {
    const store = new MemoryAttachmentStore();
    expect((await toolOutcome({ content: [{ type: "image", data: Buffer.from("not an image").toString("base64"), mimeType: "image/bmp" }] }, store)).content[0]).toEqual({
      type: "text",
      text: expect.stringMatching(/^\[image\/bmp image, 12 bytes, not kept: .+\]$/),
    });
    expect((await toolOutcome({ content: [{ type: "image", data: png }] }, undefined)).content[0]).toEqual({ type: "text", text: `[image image, ${Buffer.from(png, "base64").length} bytes: no attachment store to keep it]` });
    expect(
      (
        await toolOutcome(
          {
            content: [
              { type: "resource", resource: { uri: "file:///a.txt", text: "the text" } },
              { type: "resource", resource: { uri: "file:///b.bin", blob: "AAAA" } },
              { type: "resource_link", uri: "file:///c", name: "c" },
              { type: "resource_link", uri: "file:///d" },
              { type: "audio", data: "AAAA", mimeType: "audio/wav" },
              { type: "video" },
              { type: "text" },
            ],
          },
          undefined,
        )
      ).content.map((block) => (block.type === "text" ? block.text : block.type)),
    ).toEqual(["the text", "[resource file:///b.bin]", "[resource file:///c (c)]", "[resource file:///d]", "[audio content, audio/wav]", "[video content]", ""]);
  });

  it("gives structured content as JSON only when nothing else came, and keeps the error flag", async () => {
    expect(await toolOutcome({ structuredContent: { sum: 3 } }, undefined)).toEqual({ content: [{ type: "text", text: '{"sum":3}' }], isError: false, additionalContexts: [] });
    expect((await toolOutcome({ content: [{ type: "text", text: "3" }], structuredContent: { sum: 3 } }, undefined)).content).toEqual([{ type: "text", text: "3" }]);
    expect(await toolOutcome({ isError: true }, undefined)).toEqual({ content: [], isError: true, additionalContexts: [] });
    expect((await toolOutcome({}, undefined)).isError).toBe(false);
  });
});
