import { readFile } from "node:fs/promises";
import { expect, it, vi } from "vitest";
import { main } from "../examples/quickstart.js";

it("runs the README quick start, whose code is examples/quickstart.ts verbatim", async () => {
  const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
  const example = await readFile(new URL("../examples/quickstart.ts", import.meta.url), "utf8");
  expect(readme).toContain("```ts\n" + example + "```");
  const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    await expect(main()).resolves.toBe(true);
    expect(log.mock.calls[0]).toEqual(["completed", "-", 'The tool said: [{"type":"text","text":"12:00 in UTC"}]']);
  } finally {
    log.mockRestore();
  }
});
