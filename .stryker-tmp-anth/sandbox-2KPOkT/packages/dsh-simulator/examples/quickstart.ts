import { startSimulator } from "dsh-simulator";

export async function main(): Promise<number[]> {
  const sim = await startSimulator({
    scenario: { responses: [{ text: "Let me look.", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { fault: "http-429" }, { text: "Done." }] },
  });
  try {
    const ask = async (content: string) => {
      const body = { model: "sim-1", messages: [{ role: "system", content: "You are terse. ".repeat(40) }, { role: "user", content }], stream: true };
      const response = await fetch(`${sim.url}/chat/completions`, { method: "POST", body: JSON.stringify(body) });
      await response.text(); // the SSE stream; usage arrives on its last chunk
      return response.status;
    };
    console.log(await ask("What is here?"), await ask("And now?"), await ask("And now?")); // 200 429 200
    // Every body it received, with the prompt tokens it counted and the ones it served from its prefix cache.
    return sim.exchanges.map((exchange) => exchange.cacheHitTokens); // [0, 0, 128]: the retry read the cached prefix
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
