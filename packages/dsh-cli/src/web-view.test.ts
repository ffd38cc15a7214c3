import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
import { makePng } from "dsh-testkit";
import { describe, expect, it } from "vitest";
import { attachmentStore } from "./session.js";
import { sampleProject } from "./test-support/project-fixtures.js";
import { runCli } from "./test-support/run-cli.js";
import { inlineImage, sessionView } from "dsh-web-store";

describe("sessionView", () => {
  it("verifies images and rebuilds wire bodies; with an object gone, shows the failed image and the provider's usage instead", async () => {
    const project = await sampleProject();
    await writeFile(join(project, "pixel.png"), makePng(2, 2));
    expect((await runCli(["run", "--log", "../s.jsonl", "--image", "pixel.png", "what is this?"], { cwd: project })).code).toBe(0);
    const session = await readJsonlLog(join(project, "..", "s.jsonl"), createAgentRegistry());
    const info = session.header;
    const store = attachmentStore(project, undefined);
    const sources: string[] = [];
    const counted: typeof inlineImage = (ref, bytes) => (sources.push(ref.digest), inlineImage(ref, bytes));
    const view = await sessionView({ info, log: session.log }, store, { images: counted, composer: true, wires: true });
    const first = view.requests[0]!;
    // Every request carries the image; it is read and verified once for the page.
    expect(view.requests.length).toBeGreaterThan(1);
    for (const request of view.requests) expect(request.images).toEqual(first.images);
    expect(sources).toEqual([first.images[0]!.digest]);
    expect(first.images).toEqual([{ digest: expect.stringMatching(/^sha256:/), mediaType: "image/png", src: expect.stringMatching(/^data:image\/png;base64,/) }]);
    expect(first.wire).toContain('"image_url"');
    expect(view.composer).toEqual({ provider: "sim", model: "sim-1", explicit: {} });

    await rm(join(project, ".dsh", "objects"), { recursive: true });
    const broken = await sessionView({ info, log: session.log }, store, { images: inlineImage, composer: false, wires: true });
    expect(broken.requests).toHaveLength(view.requests.length);
    expect(broken.requests[0]!.images).toEqual([{ digest: first.images[0]!.digest, mediaType: "image/png", error: expect.stringMatching(/^ATTACHMENT_MISSING: object sha256:\w+ is not in the store/) }]);
    expect(broken.requests[0]).not.toHaveProperty("wire");
    expect(broken.requests[1]!.tokens.reported).toBe(true);
    expect(broken).not.toHaveProperty("composer");
  });
});
