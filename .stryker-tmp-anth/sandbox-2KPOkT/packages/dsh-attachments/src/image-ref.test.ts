import { describe, expect, it } from "vitest";
import { computeDigest } from "./digest.js";
import { AttachmentError } from "./errors.js";
import { describeImage, imageAttachmentRefSchema, probeImage, verifyImageMetadata } from "./image-ref.js";
import { makePng } from "dsh-testkit";

describe("describeImage", () => {
  it("records digest, media type, byte length and dimensions read from the bytes", () => {
    const bytes = makePng(3, 2);
    expect(describeImage(bytes)).toEqual({
      digest: computeDigest(bytes),
      mediaType: "image/png",
      byteLength: bytes.byteLength,
      width: 3,
      height: 2,
    });
  });

  it("refuses bytes that are not an image", () => {
    expect(() => probeImage(new TextEncoder().encode("hello"))).toThrowError(
      expect.objectContaining({ code: "ATTACHMENT_UNSUPPORTED_MEDIA" }),
    );
  });
});

describe("verifyImageMetadata", () => {
  it("accepts bytes that match every recorded field", () => {
    const bytes = makePng(4, 4);
    expect(() => verifyImageMetadata(describeImage(bytes), bytes)).not.toThrow();
  });

  it.each([
    ["width", { width: 5 }],
    ["height", { height: 1 }],
    ["byteLength", { byteLength: 1 }],
    ["mediaType", { mediaType: "image/jpeg" as const }],
  ])("names the mismatching %s", (field, change) => {
    const bytes = makePng(4, 4);
    const ref = { ...describeImage(bytes), ...change };
    let thrown: unknown;
    try {
      verifyImageMetadata(ref, bytes);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AttachmentError);
    expect(thrown).toMatchObject({ code: "ATTACHMENT_METADATA_MISMATCH" });
    expect((thrown as Error).message).toContain(field);
  });
});

describe("imageAttachmentRefSchema", () => {
  it("rejects unknown keys instead of stripping them", () => {
    const ref = { ...describeImage(makePng(1, 1)), path: "/tmp/x.png" };
    expect(imageAttachmentRefSchema.safeParse(ref).success).toBe(false);
  });

  it("rejects malformed digests", () => {
    const ref = { ...describeImage(makePng(1, 1)), digest: "sha256:../../etc/passwd" };
    expect(imageAttachmentRefSchema.safeParse(ref).success).toBe(false);
  });
});
