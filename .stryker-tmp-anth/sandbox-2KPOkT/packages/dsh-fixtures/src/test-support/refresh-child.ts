// Refreshes the fixture in argv[2] with a changed prompt, over and over, saying on stdout when it starts:
// the staged-write test kills it at some point of that work.
import { refreshFixture } from "../check.js";
import { SYSTEM_PROMPT } from "./session.js";

const dir = process.argv[2]!;
process.stdout.write("started\n");
for (;;) {
  await refreshFixture(dir, { systemPrompt: () => SYSTEM_PROMPT.replace("briefly", "in detail") });
  await refreshFixture(dir, { systemPrompt: () => SYSTEM_PROMPT });
}
