import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAgent, reconstructRequests } from "dsh-agent";
import { FileWitness, readJsonlLines, readWitnessFile } from "dsh-log";
import { ChatCompletionsAdapter } from "dsh-openai-compatible";
import { proveRequest, verifyProof } from "dsh-proof";
import { startSimulator } from "dsh-simulator";

export async function main(): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), "dsh-proof-"));
  // A stand-in for the model; the writer signs its chain's heads into a witness.
  const sim = await startSimulator({ scenario: { responses: [{ text: "Nothing to report." }] } });
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const witness = new FileWitness(join(dir, "witness.jsonl"));
  try {
    const session = await openAgent({
      session: join(dir, "session.jsonl"),
      adapters: [new ChatCompletionsAdapter({ provider: "deepseek", dialect: "deepseek", baseUrl: sim.url })],
      config: { provider: "deepseek", model: "deepseek-v4-flash" },
      signing: { key: privateKey, witness },
    });
    await session.agent.run("Anything to report?");
    await session.close();
    await witness.close();

    // The writer proves the request; anyone with the public key checks the proof, without the session.
    const stored = await readJsonlLines(join(dir, "session.jsonl"));
    const [first] = await reconstructRequests(session.log);
    const proof = await proveRequest(stored, first!.dispatchSeq, await readWitnessFile(join(dir, "witness.jsonl")));
    const summary = await verifyProof(JSON.parse(JSON.stringify(proof)), publicKey);
    console.log(summary.fate, summary.provider, summary.model); // sent deepseek deepseek-v4-flash
    return summary.wireSha256 === proof.request.wireSha256;
  } finally {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
