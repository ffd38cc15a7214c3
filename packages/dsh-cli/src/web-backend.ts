import { createAgentRegistry } from "dsh-agent";
import type { SessionStore } from "dsh-log";
import type { ContinueInput, ContinueLine, WebBackend } from "dsh-web";
import { storeBackend, type PageBuilder } from "dsh-web-store";
import type { CliIo } from "./io.js";
import { withContinuedAgent } from "./session-runner.js";
import { attachmentStore } from "./session.js";
import { storeWhatIf } from "./web-what-if.js";

/** Runs one turn on a session of `store`, as `dsh resume` would with no overrides but the ones given, keeping the session's current prompt. */
async function continueTurn(store: SessionStore, id: string, input: ContinueInput, emit: (line: ContinueLine) => void, io: CliIo, objects: string | undefined): Promise<void> {
  const { info, log } = await store.open(id, { registry: createAgentRegistry() });
  const values = { timeout: "120000", model: input.model, ...(objects === undefined ? {} : { objects }) };
  await withContinuedAgent({ info, log, store, close: () => log.close() }, values, io, async (agent) => {
    const result = await agent.run(input.prompt, {
      onChunk: (chunk) => {
        if (chunk.type === "text-delta") emit({ type: "text", text: chunk.text });
        else if (chunk.type === "tool-call-delta" && chunk.name !== undefined) emit({ type: "tool", name: chunk.name });
      },
    });
    emit({ type: "done", turn: result.turn, reason: result.reason });
  });
}

/**
 * `dsh web`'s backend: `storeBackend` of `dsh-web-store` over the store (pages built by `pages` when
 * given), with turns continued on the CLI's providers and what-ifs under the catalogs' prices.
 */
export function cliBackend(store: SessionStore, io: CliIo, objects: string | undefined, pages?: PageBuilder, pageEvents?: number): WebBackend {
  const attachments = attachmentStore(io.cwd, objects);
  return storeBackend(store, {
    attachments,
    ...(pageEvents === undefined ? {} : { pageEvents }),
    ...(pages === undefined ? {} : { builder: pages }),
    continueSession: (id, input, emit) => continueTurn(store, id, input, emit, io, objects),
    whatIf: (id, input) => storeWhatIf(store, id, input, attachments),
  });
}
