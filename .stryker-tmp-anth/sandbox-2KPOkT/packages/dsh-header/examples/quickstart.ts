import { buildEpochHeader, foldRequestHeader, owedHeaderSnapshot, registerHeaderEvents, requestHeaderEvent, selectionFromHeader } from "dsh-header";
import { EventLog, EventRegistry } from "dsh-log";

export async function main(): Promise<string[]> {
  const log = new EventLog({ registry: registerHeaderEvents(new EventRegistry()) });
  const tools = [{ name: "read_file", description: "Read a file", parameters: { type: "object" } }];
  const defaults = { maxTokens: 8192 }; // what the adapter applies when the caller does not choose
  let selection = { provider: "deepseek", model: "deepseek-v4-flash" };
  let written = false;

  for (const startsRequestSeries of [false, false, true]) {
    const header = buildEpochHeader(selection, defaults, tools);
    const owed = owedHeaderSnapshot({
      latest: foldRequestHeader(log)?.header,
      writtenByThisInstance: written,
      next: header,
      startsRequestSeries,
      followsReplace: false,
    });
    if (owed !== undefined) await log.append(requestHeaderEvent.input({ ...owed, header }));
    written = true;
    // Restore the selection from the log the right way: the default stays a default.
    selection = selectionFromHeader(foldRequestHeader(log)!.header);
  }
  const reasons = log.slice().map((event) => (event.data as { reason: string }).reason);
  console.log(reasons); // ["initial", "series"]: the plain follow-up owed nothing
  console.log(foldRequestHeader(log)?.header.adapterDefaults); // { maxTokens: 8192 }
  return reasons;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
