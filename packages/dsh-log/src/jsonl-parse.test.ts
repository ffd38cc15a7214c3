import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDeepFrozen } from "dsh-llm";
import { parseJsonl } from "./jsonl-parse.js";

const HEADER = '{"format":"dsh-log","version":1,"sessionId":"s","createdAt":1}\n';
const line = (seq: number, data: string) => `{"seq":${seq},"type":"note/added","time":1,"data":${data}}\n`;
const parse = (text: string) => parseJsonl(Buffer.from(text, "utf8"));

describe("parseJsonl", () => {
  it("returns the header and every event exactly as JSON.parse reads it, deep-frozen", () => {
    const exact = fc.jsonValue().map((value) => JSON.stringify(value)).filter((text) => !text.includes("-0"));
    fc.assert(
      fc.property(fc.array(exact, { maxLength: 12 }), (datas) => {
        const lines = datas.map((data, seq) => line(seq, data));
        const parsed = parse(HEADER + lines.join(""));
        expect(parsed.header).toEqual({ format: "dsh-log", version: 1, sessionId: "s", createdAt: 1 });
        expect(parsed.events).toEqual(lines.map((text) => JSON.parse(text)));
        expect(isDeepFrozen(parsed.events)).toBe(true);
        expect(parsed.tornTail).toBeUndefined();
      }),
      { numRuns: Number(process.env.DSH_PROPERTY_RUNS ?? 100) },
    );
  });

  it("reports a torn final line by line, offset and length, and keeps the events before it", () => {
    const intact = HEADER + line(0, '{"text":"a"}');
    const parsed = parse(`${intact}{"seq":1,"ty`);
    expect(parsed.events).toHaveLength(1);
    expect(parsed.tornTail).toEqual({ line: 3, offset: Buffer.byteLength(intact), bytes: 12 });
  });

  it("reads a line in another spelling of the same JSON (spaces, escapes) on the slow path", () => {
    const parsed = parse(`${HEADER}{"seq":0, "type":"note\\/added","time":1,"data":{"text":"\\u0061"}}\n`);
    expect(parsed.events).toEqual([{ seq: 0, type: "note/added", time: 1, data: { text: "a" } }]);
    expect(Object.isFrozen(parsed.events[0])).toBe(true);
  });

  it.each([
    ["an empty file", "", "LOG_CORRUPT", "line 1: the file has no complete header line"],
    ["a torn header", '{"format":"dsh-l', "LOG_CORRUPT", "line 1: the file has no complete header line"],
    ["another format", '{"format":"other"}\n', "LOG_UNSUPPORTED_FORMAT", "line 1: not a dsh-log file"],
    ["a header that is not an object", "[1]\n", "LOG_UNSUPPORTED_FORMAT", "line 1: not a dsh-log file"],
    ["a newer version", '{"format":"dsh-log","version":3,"sessionId":"s","createdAt":1}\n', "LOG_UNSUPPORTED_FORMAT", "line 1: dsh-log version 3 is not supported (this reader knows versions 1 and 2)"],
    ["a chained event line without its link", '{"format":"dsh-log","version":2,"sessionId":"s","createdAt":1}\n{"seq":0,"type":"a/b","time":1,"data":{}}\n', "LOG_CORRUPT", 'line 2: the line does not start with its chain link ({"chain":"...",)'],
    ["an invalid header", '{"format":"dsh-log","version":1,"sessionId":"","createdAt":1}\n', "LOG_CORRUPT", "line 1: invalid header: sessionId: Too small: expected string to have >=1 characters"],
    ["a header in another spelling", '{"format":"dsh-log", "version":1,"sessionId":"s","createdAt":1}\n', "LOG_CORRUPT", "line 1: the header is not in the form the writer writes"],
    ["a header repeating a key", '{"format":"dsh-log","version":1,"sessionId":"s","sessionId":"s","createdAt":1}\n', "LOG_CORRUPT", 'line 1: the header repeats the key "sessionId"'],
    ["an event line that is a number", `${HEADER}5\n`, "LOG_CORRUPT", "line 2: an event line must be a JSON object"],
    ["an event line that is an array", `${HEADER}[1]\n`, "LOG_CORRUPT", "line 2: an event line must be a JSON object"],
    ["an event line that is null", `${HEADER}null\n`, "LOG_CORRUPT", "line 2: an event line must be a JSON object"],
    ["a header that is null", "null\n", "LOG_UNSUPPORTED_FORMAT", "line 1: not a dsh-log file"],
    ["an event line with another key in place of data", `${HEADER}{"seq":0,"type":"a/b","time":1,"text":{}}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["a bad literal in a line whose brackets balance", HEADER + line(0, "tru"), "LOG_CORRUPT", /^line 2: unreadable JSON: /],
    ["two values on one line", `${HEADER}{},{}\n`, "LOG_CORRUPT", /^line 2: unreadable JSON: /],
    ["an event line missing data", `${HEADER}{"seq":0,"type":"a/b","time":1}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["an event line with another key in place of seq", `${HEADER}{"x":0,"type":"a/b","time":1,"data":{}}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["an event line with another key in place of type", `${HEADER}{"seq":0,"x":"a/b","time":1,"data":{}}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["an event line with another key in place of time", `${HEADER}{"seq":0,"type":"a/b","x":1,"data":{}}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["an event line with an extra key", `${HEADER}{"seq":0,"type":"a/b","time":1,"data":{},"x":1}\n`, "LOG_CORRUPT", "line 2: an event line must have exactly the keys seq, type, time, data"],
    ["-0 in data", HEADER + line(0, '{"n":-0}'), "LOG_INVALID_EVENT", "line 2: data -0 does not survive JSON"],
    ["a number too large for a double", HEADER + line(0, "[1e400]"), "LOG_INVALID_EVENT", "line 2: data Infinity does not survive JSON"],
    ["a repeated key in data", HEADER + line(0, '{"a":1,"a":2}'), "LOG_CORRUPT", 'line 2: the line repeats the key "a" in one object'],
    ["unreadable JSON", `${HEADER}{"seq":0,\n`, "LOG_CORRUPT", /^line 2: unreadable JSON: /],
    ["nesting past 512 levels", HEADER + line(0, `${"[".repeat(600)}${"]".repeat(600)}`), "LOG_INVALID_EVENT", "line 2: data nests deeper than 512 levels"],
    ["-0 as the time", `${HEADER}{"seq":0,"type":"a/b","time":-0,"data":{}}\n`, "LOG_INVALID_EVENT", "line 2: time -0 does not survive JSON"],
    ["-0 as the seq", `${HEADER}{"seq":-0,"type":"a/b","time":1,"data":{}}\n`, "LOG_INVALID_EVENT", "line 2: seq -0 does not survive JSON"],
    ["a time too large for a double", `${HEADER}{"seq":0,"type":"a/b","time":1e400,"data":{}}\n`, "LOG_INVALID_EVENT", "line 2: time Infinity does not survive JSON"],
    ["-0 inside a type of the wrong kind", `${HEADER}{"seq":0,"type":[-0],"time":1,"data":{}}\n`, "LOG_INVALID_EVENT", "line 2: type -0 does not survive JSON"],
    ["a repeated key in a seq of the wrong kind", `${HEADER}{"seq":{"a":1,"a":2},"type":"a/b","time":1,"data":{}}\n`, "LOG_CORRUPT", 'line 2: the line repeats the key "a" in one object'],
  ] as [string, string, string, string | RegExp][])("refuses %s", (_what, text, code, message) => {
    // JSON.parse's own wording differs between Node versions: only our part of that message is pinned.
    expect(() => parse(text)).toThrow(expect.objectContaining({ code, message: typeof message === "string" ? message : expect.stringMatching(message) }));
  });

  it("leaves an envelope field of the wrong kind to admission, frozen and counted like data", () => {
    // Each spelling goes through a chunk of lines (the fast path) and alone after a line that sends its chunk line by line.
    for (const seq of ['{"a":1}', "[1]", '{"a":{"b":[2]}}']) {
      const event = `{"seq":${seq},"type":"a/b","time":1,"data":{}}\n`;
      for (const text of [HEADER + event + line(1, "{}"), `${HEADER}{"seq":0, "type":"a/b","time":1,"data":{}}\n${event}`]) {
        const parsed = parse(text).events;
        expect(parsed.map((e) => JSON.stringify(e.seq))).toContain(seq);
        expect(isDeepFrozen(parsed)).toBe(true);
      }
    }
  });

  it("names the line of a bad event deep in a long file", () => {
    const lines = Array.from({ length: 60 }, (_, seq) => line(seq, seq === 41 ? '{"a":1,"a":2}' : `{"text":"${"x".repeat(seq)}"}`));
    expect(() => parse(HEADER + lines.join(""))).toThrow(expect.objectContaining({ line: 43 }));
    const inner = Array.from({ length: 60 }, (_, seq) => line(seq, seq === 20 ? '"a\\u000ab"' : '"ok"'));
    expect(parse(HEADER + inner.join("")).events[20]!.data).toBe("a\nb");
  });
});

describe("parseJsonl and commits", () => {
  it("drops the whole lines of a commit whose last line never arrived, as part of the torn tail", () => {
    const header = '{"format":"dsh-log","version":1,"sessionId":"s","createdAt":1}\n';
    const line = (seq: number, end: string) => `{"seq":${seq},"type":"note/added","time":1,"data":{"text":"${seq}"}}${end}`;
    const whole = header + line(0, "\n") + line(1, " \n") + line(2, "\n");
    expect(parseJsonl(Buffer.from(whole)).events.map((event) => event.seq)).toEqual([0, 1, 2]);
    const torn = header + line(0, "\n") + line(1, " \n");
    const parsed = parseJsonl(Buffer.from(torn));
    expect(parsed.events.map((event) => event.seq)).toEqual([0]);
    expect(parsed.tornTail).toEqual({ line: 3, offset: Buffer.byteLength(header + line(0, "\n")), bytes: Buffer.byteLength(line(1, " \n")) });
  });
});
