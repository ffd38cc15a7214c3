import { describe, expect, it } from "vitest";
import { connectionLost, onLiveConnection } from "./connection-lost.js";

const coded = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

describe("connectionLost", () => {
  it.each(["57P01", "57P02", "08006", "08003", "ECONNRESET", "EPIPE"])("calls %s a lost connection", (code) => {
    expect(connectionLost(coded(code))).toBe(true);
  });

  it.each(["Connection terminated unexpectedly", "Connection terminated", "Client has encountered a connection error and is not queryable", "Client was closed and is not queryable"])("calls pg's %j a lost connection", (message) => {
    expect(connectionLost(new Error(message))).toBe(true);
  });

  it.each(["23505", "40001", "57014", "42P01", "ENOENT"])("calls %s a failed statement, not a lost connection", (code) => {
    expect(connectionLost(coded(code))).toBe(false);
  });

  it.each(["ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "57P03", "08001", "08004"])("calls %s a connection that could not be opened, not a lost one", (code) => {
    expect(connectionLost(coded(code))).toBe(false);
  });

  it("calls anything else a failed statement", () => {
    expect(connectionLost(new Error("syntax error at or near x"))).toBe(false);
    expect(connectionLost(new Error("the Connection terminated"))).toBe(false);
    expect(connectionLost(new Error("is not queryable, said the client"))).toBe(false);
    expect(connectionLost(Object.assign(new Error("Connection terminated"), { code: 42 }))).toBe(true);
    expect(connectionLost("Connection terminated")).toBe(false);
    expect(connectionLost(undefined)).toBe(false);
  });
});

describe("onLiveConnection", () => {
  it("tries a statement whose connection is lost again, up to the attempts given, and then fails with the last error", async () => {
    const codes = ["57P01", "08006", "ECONNRESET", "EPIPE"];
    let calls = 0;
    await expect(onLiveConnection(3, async () => { throw coded(codes[calls++]!); })).rejects.toMatchObject({ code: "ECONNRESET" });
    expect(calls).toBe(3);
  });

  it("returns what the first live connection gives", async () => {
    let calls = 0;
    expect(await onLiveConnection(3, async () => (++calls < 3 ? Promise.reject(coded("ECONNRESET")) : "rows"))).toBe("rows");
    expect(calls).toBe(3);
  });

  it("never tries a failed statement again", async () => {
    let calls = 0;
    await expect(onLiveConnection(3, async () => { calls += 1; throw coded("23505"); })).rejects.toMatchObject({ code: "23505" });
    expect(calls).toBe(1);
  });
});
