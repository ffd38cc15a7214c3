import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SessionChain, chainGenesis, lineDigest, nextLink } from "./chain.js";
import { LINK_PREFIX_BYTES, linkedLine, startsWithLink } from "./jsonl-format.js";

const sha256 = (...parts: (string | Buffer)[]) => {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest();
};

describe("the hash chain", () => {
  it("starts from a hash of the session's identity: its id, creation time and, for a fork, its parent", () => {
    expect(chainGenesis({ sessionId: "s", createdAt: 5 })).toEqual(sha256('dsh-chain/1\n{"sessionId":"s","createdAt":5}'));
    expect(chainGenesis({ sessionId: "s", createdAt: 5, parent: { sessionId: "p", seedLength: 2 } })).toEqual(
      sha256('dsh-chain/1\n{"sessionId":"s","createdAt":5,"parent":{"sessionId":"p","seedLength":2}}'),
    );
    const heads = [
      { sessionId: "s", createdAt: 5 },
      { sessionId: "t", createdAt: 5 },
      { sessionId: "s", createdAt: 6 },
      { sessionId: "s", createdAt: 5, parent: { sessionId: "p", seedLength: 2 } },
      { sessionId: "s", createdAt: 5, parent: { sessionId: "p", seedLength: 3 } },
    ].map((info) => chainGenesis(info).toString("hex"));
    expect(new Set(heads).size).toBe(heads.length);
  });

  it("links each line as sha256(previous ‖ sha256(line)), and its head counts the events", () => {
    const genesis = chainGenesis({ sessionId: "s", createdAt: 5 });
    expect(lineDigest('{"seq":0}')).toEqual(sha256('{"seq":0}'));
    expect(nextLink(genesis, lineDigest("a"))).toEqual(sha256(genesis, sha256("a")));
    const chain = SessionChain.start({ sessionId: "s", createdAt: 5 });
    expect(chain.head).toEqual({ sessionId: "s", events: 0, head: genesis.toString("hex") });
    const [first, second] = chain.extend(["a", "b"]);
    expect(first).toEqual(sha256(genesis, sha256("a")));
    expect(second).toEqual(sha256(first!, sha256("b")));
    expect(chain.head).toEqual({ sessionId: "s", events: 2, head: second!.toString("hex") });
    // A writer that reopens goes on from the last stored link.
    expect(new SessionChain("s", first!, 1).extend(["b"])).toEqual([second]);
  });

  it("writes a link as a line's first key, in exactly the form a reader recognizes", () => {
    const line = linkedLine('{"seq":0,"type":"a/b","time":1,"data":{}}', Buffer.alloc(32, 255));
    expect(line).toBe(`{"chain":"${"_".repeat(42)}8","seq":0,"type":"a/b","time":1,"data":{}}`);
    const bytes = Buffer.from(line);
    expect(startsWithLink(bytes, 0, bytes.length)).toBe(true);
    expect(startsWithLink(bytes, 0, LINK_PREFIX_BYTES)).toBe(false);
    expect(startsWithLink(bytes, 0, LINK_PREFIX_BYTES + 1)).toBe(true);
    for (const at of [0, 5, 9, LINK_PREFIX_BYTES - 2, LINK_PREFIX_BYTES - 1]) {
      const damaged = Buffer.from(bytes);
      damaged[at] = 0x41;
      expect(startsWithLink(damaged, 0, damaged.length), `byte ${at}`).toBe(false);
    }
  });
});
