import type { PendingBatch } from "dsh-log/store";
import { describe, expect, it } from "vitest";
import { commitSettled, settledBatch } from "./settled-commit.js";

/** A batch of `size` events from seq 4, under writer epoch 2 (only what settling reads of it). */
const batch = (size: number) => ({ sessionId: "s", epoch: 2, events: Array.from({ length: size }, (_, i) => ({ seq: 4 + i })), lines: [] }) as unknown as PendingBatch;
const row = (head: number, epoch = 2) => ({ id: "s", head, writer_epoch: epoch });

describe("settledBatch: what became of a commit whose reply was lost", () => {
  it.each([1, 3])("calls a batch of %i in when the head stands at its end under its writer's epoch", (size) => {
    expect(settledBatch(batch(size), row(4 + size))).toBeUndefined();
  });

  it.each([1, 3])("sends a batch of %i again when the head still stands where it expected", (size) => {
    expect(settledBatch(batch(size), row(4))).toBe("again");
  });

  it("refuses a batch whose writer was superseded, wherever the head stands", () => {
    for (const head of [4, 5, 9]) expect(settledBatch(batch(1), row(head, 3))).toMatchObject({ code: "LOG_CONFLICT", message: "session s was opened by another writer; this one may no longer append" });
  });

  it("refuses a batch whose session moved elsewhere under its epoch, and one whose session is gone", () => {
    expect(settledBatch(batch(3), row(6))).toMatchObject({ code: "LOG_CONFLICT", message: "session s holds 6 events, not the 4 this writer expected" });
    expect(settledBatch(batch(1), row(3))).toMatchObject({ code: "LOG_CONFLICT", message: "session s holds 3 events, not the 4 this writer expected" });
    expect(settledBatch(batch(1), undefined)).toMatchObject({ code: "LOG_CONFLICT", message: "session s is gone from the store" });
  });
});

/** A connection that answers each statement with the next of `replies` (rows, or an error thrown), recording what it was asked. */
function scripted(...replies: (object[] | Error)[]) {
  const asked: string[] = [];
  const client = {
    async query(query: { readonly text: string; readonly values: unknown[] }) {
      asked.push(query.text.includes("= ANY($1)") ? `read ${(query.values[0] as string[]).join(",")}` : `commit ${String(query.values[0])}`);
      const reply = replies.shift();
      if (reply === undefined) throw new Error("no reply scripted");
      if (reply instanceof Error) throw reply;
      return { rows: reply };
    },
  };
  return { client, asked };
}

const lost = (code = "57P01") => Object.assign(new Error("terminating connection due to administrator command"), { code });
const pending = (sessionId: string) => ({ sessionId, epoch: 2, events: [{ seq: 4 }], lines: ["{}"] }) as unknown as PendingBatch;
const committed = [{ pg_notify: "" }];

describe("commitSettled: a commit through the pool whose connection was lost", () => {
  it("resolves without sending again when the row says the batch went in", async () => {
    const { client, asked } = scripted(lost(), [row(5)]);
    expect(await commitSettled(client, [pending("s")], undefined, 3)).toEqual([undefined]);
    expect(asked).toEqual(["commit s", "read s"]);
  });

  it("sends the batch again when the row says it did not go in", async () => {
    const { client, asked } = scripted(lost(), [row(4)], committed);
    expect(await commitSettled(client, [pending("s")], undefined, 3)).toEqual([undefined]);
    expect(asked).toEqual(["commit s", "read s", "commit s"]);
  });

  it("gives the refusal of a batch sent again, when a newer writer took the session between", async () => {
    const { client } = scripted(lost(), [row(4)], [], [row(4, 3)]);
    const [outcome] = await commitSettled(client, [pending("s")], undefined, 3);
    expect(outcome).toMatchObject({ code: "LOG_CONFLICT", message: "session s was opened by another writer; this one may no longer append" });
  });

  it("reads the row again on another connection when the read meets a lost one too", async () => {
    const { client, asked } = scripted(lost(), lost("ECONNRESET"), [row(5)]);
    expect(await commitSettled(client, [pending("s")], undefined, 3)).toEqual([undefined]);
    expect(asked).toEqual(["commit s", "read s", "read s"]);
  });

  it("gives a superseded writer its conflict without sending again", async () => {
    const { client, asked } = scripted(lost(), [row(4, 3)]);
    const [outcome] = await commitSettled(client, [pending("s")], undefined, 3);
    expect(outcome).toMatchObject({ code: "LOG_CONFLICT", message: "session s was opened by another writer; this one may no longer append" });
    expect(asked).toEqual(["commit s", "read s"]);
  });

  it("sends again only the batches of a group commit that did not go in", async () => {
    const { client, asked } = scripted(lost(), [{ ...row(5), id: "a" }, { ...row(4), id: "b" }], committed);
    expect(await commitSettled(client, [pending("a"), pending("b")], undefined, 3)).toEqual([undefined, undefined]);
    expect(asked).toEqual(["commit a,b", "read a,b", "commit b"]);
  });

  it("stops after the attempts given with the last lost connection's error, and at once on a failed statement", async () => {
    const { client, asked } = scripted(lost(), [row(4)], lost(), [row(4)], lost("08006"));
    await expect(commitSettled(client, [pending("s")], undefined, 3)).rejects.toMatchObject({ code: "08006" });
    expect(asked).toEqual(["commit s", "read s", "commit s", "read s", "commit s"]);
    const failing = scripted(Object.assign(new Error("duplicate key"), { code: "23505" }));
    await expect(commitSettled(failing.client, [pending("s")], undefined, 3)).rejects.toMatchObject({ code: "23505" });
    expect(failing.asked).toEqual(["commit s"]);
  });
});
