import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario } from "./scenario.js";

describe("loadScenario", () => {
  it("reads scripted replies or the explore policy, and names the file and the problem when it cannot", async () => {
    const dir = await mkdtemp(join(tmpdir(), "dsh-scenario-"));
    const file = async (name: string, text: string) => {
      const path = join(dir, name);
      await writeFile(path, text);
      return path;
    };
    const replies = { responses: [{ text: "Hi.", toolCalls: [{ name: "read_file", arguments: { path: "a" } }] }, { fault: "http-429" }] };
    expect(await loadScenario(await file("replies.json", JSON.stringify(replies)))).toEqual(replies);
    expect(await loadScenario(await file("explore.json", '{"policy":"explore"}'))).toEqual({ policy: "explore" });
    const broken = await file("broken.json", "{");
    await expect(loadScenario(broken)).rejects.toThrow(new RegExp(`^cannot read scenario ${broken}: `));
    await expect(loadScenario(broken)).rejects.toMatchObject({ cause: expect.any(SyntaxError) });
    await expect(loadScenario(join(dir, "missing.json"))).rejects.toThrow(/^cannot read scenario .*missing\.json: ENOENT/);
    const invalid = await file("invalid.json", '{"responses":[{"text":"x","extra":1}]}');
    await expect(loadScenario(invalid)).rejects.toThrow(new RegExp(`^invalid scenario ${invalid}: .*extra`, "s"));
    await expect(loadScenario(await file("empty.json", '{"responses":[]}'))).rejects.toThrow(/^invalid scenario/);
  });
});
