// 14. One request's body, by adapter, in a growing session: each adapter's serializer with the
// session's caches (one freezer, the previous requests serialized) against the same request frozen
// alone (no cache), at N prior messages; the bytes must be equal.
import { serializeRequestBytes as anthropic } from "dsh-anthropic";
import { serializeRequestBytes as gemini } from "dsh-gemini";
import { RequestFreezer, freezeRequest, type FrozenGenerateOptions, type GenerateOptions, type Message } from "dsh-llm";
import { serializeRequestBytes as chat } from "dsh-openai-compatible";
import { serializeRequestBytes as responses } from "dsh-openai-responses";
import { median, timed } from "./util.js";

export interface AdapterSerializeRow {
  readonly adapter: string;
  readonly priorMessages: number;
  /** Median ms of one request's body with the session's caches. */
  readonly sessionMs: number;
  /** Median ms of the same request frozen alone. */
  readonly aloneMs: number;
  /** Median of the per-round ratios alone / session (above 1: the session's caches pay). */
  readonly ratio: number;
  readonly identical: boolean;
}

const adapters: readonly { readonly name: string; readonly config: GenerateOptions["config"]; readonly serialize: (request: FrozenGenerateOptions) => Promise<Buffer> }[] = [
  { name: "Chat Completions (DeepSeek)", config: { provider: "deepseek", model: "deepseek-v4-flash", maxTokens: 1024 }, serialize: (request) => chat(request, { dialect: "deepseek" }) },
  { name: "Responses (rolling-v1)", config: { provider: "openai-responses", model: "gpt-5.6", maxTokens: 1024, cachePolicy: "rolling-v1" }, serialize: (request) => responses(request, { breakpoints: true }) },
  { name: "Messages (rolling-v1)", config: { provider: "anthropic", model: "claude-sonnet-4-6", maxTokens: 1024, cachePolicy: "rolling-v1" }, serialize: (request) => anthropic(request) },
  { name: "Gemini", config: { provider: "gemini", model: "gemini-3-flash", maxTokens: 1024 }, serialize: (request) => gemini(request) },
];

/** One tool step: an answer with a call, and its result. */
function step(i: number): Message[] {
  return [
    { role: "assistant", content: [{ type: "text", text: `Let me read file ${i}.` }, { type: "tool-call", callId: `call_${i}`, name: "read_file", arguments: JSON.stringify({ path: `src/f${i}.ts` }) }], source: "model" },
    { role: "tool", callId: `call_${i}`, toolName: "read_file", content: [{ type: "text", text: `export const v${i} = ${i}; // a short file\n` }], isError: false, source: "tool" },
  ];
}

export async function adapterSerializeBench(sizes: readonly number[], rounds: number): Promise<AdapterSerializeRow[]> {
  const rows: AdapterSerializeRow[] = [];
  for (const { name, config, serialize } of adapters) {
    for (const size of sizes) {
      const freezer = new RequestFreezer();
      let messages: Message[] = [{ role: "system", content: "You are a benchmark agent.", source: "system-prompt" }, { role: "user", content: [{ type: "text", text: "Go." }], source: "user" }];
      for (let i = 0; messages.length < size; i++) messages.push(...step(i));
      await serialize(freezer.freeze({ config, messages }));
      const session: number[] = [];
      const alone: number[] = [];
      const ratios: number[] = [];
      let identical = true;
      for (let round = 0; round < rounds; round++) {
        messages = [...messages, ...step(size + round)];
        const request = freezer.freeze({ config, messages });
        const single = freezeRequest(structuredClone({ config, messages }));
        // Alternate which goes first, so neither always runs on the other's warm caches.
        const first = round % 2 === 0;
        const a = first ? await timed(() => serialize(request)) : undefined;
        const b = await timed(() => serialize(single));
        const s = a ?? (await timed(() => serialize(request)));
        session.push(s.ms);
        alone.push(b.ms);
        ratios.push(b.ms / s.ms);
        if (!s.value.equals(b.value)) identical = false;
      }
      rows.push({ adapter: name, priorMessages: size, sessionMs: median(session), aloneMs: median(alone), ratio: median(ratios), identical });
    }
  }
  return rows;
}

if (process.argv[2] === "--adapters") {
  process.stdout.write(JSON.stringify(await adapterSerializeBench(process.argv[3]!.split(",").map(Number), Number(process.argv[4]))));
}
