// The bad-input corpus: variations of one valid session log, each either loadable (a torn tail) or
// refused at a known line. Generated from the valid log's bytes, so the corpus is code, not files.

/** One case: its bytes and what every reader must do with them. */
export interface BadLog {
  readonly name: string;
  readonly bytes: Buffer;
  /** The line a refusal must name; `undefined` when the log loads (perhaps dropping a torn tail). */
  readonly refusedAt: number | undefined;
}

const text = (lines: readonly string[]) => Buffer.from(`${lines.join("\n")}\n`);

/** Replaces the data of the event on 1-based `line` (a line of the valid log) through `change`. */
function withEvent(lines: readonly string[], line: number, change: (event: Record<string, unknown>) => Record<string, unknown>): string[] {
  const copy = [...lines];
  copy[line - 1] = JSON.stringify(change(JSON.parse(copy[line - 1]!) as Record<string, unknown>));
  return copy;
}

/** Every case, derived from the lines of a valid log whose line 2 is `turn/start` and which holds a `request/header` and a `tool/result`. */
export function badLogs(valid: Buffer): BadLog[] {
  const lines = valid.toString("utf8").trimEnd().split("\n");
  const find = (type: string) => lines.findIndex((line) => line.includes(`"type":"${type}"`)) + 1;
  const header = find("request/header");
  const result = find("tool/result");
  const last = lines.length;
  const deep = `${"[".repeat(20_000)}${"]".repeat(20_000)}`;
  const user = find("user/message");
  /** The valid log with `bytes` in place of the "o" of the user's "look" (inside a JSON string, so only UTF-8 decoding can object). */
  const spliced = (bytes: readonly number[]) => {
    const at = valid.indexOf('"text":"look"') + '"text":"l'.length;
    return Buffer.concat([valid.subarray(0, at), Buffer.from(bytes), valid.subarray(at + 1)]);
  };
  const invalidUtf8 = spliced([0xfe]);
  const cases: BadLog[] = [
    { name: "the valid log", bytes: valid, refusedAt: undefined },
    { name: "a torn final line", bytes: Buffer.concat([valid, Buffer.from('{"seq":999,"type":"tu')]), refusedAt: undefined },
    { name: "a torn final line cut inside a multi-byte character", bytes: Buffer.concat([valid, Buffer.from('{"seq":999,"data":"é').subarray(0, -1)]), refusedAt: undefined },
    { name: "an invalid UTF-8 byte inside a string", bytes: invalidUtf8, refusedAt: user },
    { name: "invalid UTF-8 followed by a torn tail", bytes: Buffer.concat([invalidUtf8, Buffer.from('{"seq":999')]), refusedAt: user },
    { name: "an overlong UTF-8 encoding inside a string", bytes: spliced([0xc1, 0xaf]), refusedAt: user },
    { name: "a lone surrogate encoded in UTF-8 inside a string", bytes: spliced([0xed, 0xa0, 0x80]), refusedAt: user },
    { name: "a raw NUL byte inside a string", bytes: spliced([0x00]), refusedAt: user },
    { name: "a duplicate key in data", bytes: text(lines.map((line, i) => (i === 1 ? line.replace('"turn":0', '"turn":0,"turn":1') : line))), refusedAt: 2 },
    { name: "a duplicate envelope key", bytes: text(lines.map((line, i) => (i === 1 ? line.replace('"seq":0,', '"seq":0,"seq":0,') : line))), refusedAt: 2 },
    { name: "extra whitespace (the same JSON: loads)", bytes: text(lines.map((line, i) => (i === 2 ? line.replace(",", ", ") : line))), refusedAt: undefined },
    { name: "CRLF line endings on events (the same JSON: loads)", bytes: Buffer.from(`${lines[0]}\n${lines.slice(1).join("\r\n")}\r\n`), refusedAt: undefined },
    { name: "a CRLF header line", bytes: Buffer.from(`${lines.join("\r\n")}\r\n`), refusedAt: 1 },
    { name: "-0 in an event", bytes: text(withEvent(lines, 2, (event) => ({ ...event, data: { turn: "NEGZERO" } })).map((line) => line.replace('"NEGZERO"', "-0"))), refusedAt: 2 },
    { name: "a number too large for a double", bytes: text(lines.map((line, i) => (i === 1 ? line.replace('"turn":0', '"turn":1e400') : line))), refusedAt: 2 },
    { name: "a byte-order mark", bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid]), refusedAt: 1 },
    { name: "an empty line in the middle", bytes: text([...lines.slice(0, 3), "", ...lines.slice(3)]), refusedAt: 4 },
    { name: "a truncated middle line", bytes: text([...lines.slice(0, 2), lines[2]!.slice(0, 12), ...lines.slice(3)]), refusedAt: 3 },
    { name: "a line that is an array", bytes: text([...lines.slice(0, 2), "[1,2]", ...lines.slice(3)]), refusedAt: 3 },
    { name: "a seq written as a string", bytes: text(withEvent(lines, 3, (event) => ({ ...event, seq: String(event.seq) }))), refusedAt: 3 },
    { name: "a seq gap", bytes: text([...lines.slice(0, 2), ...lines.slice(3)]), refusedAt: 3 },
    { name: "a negative time", bytes: text(withEvent(lines, 2, (event) => ({ ...event, time: -1 }))), refusedAt: 2 },
    { name: "an unknown event type", bytes: text(withEvent(lines, 2, (event) => ({ ...event, type: "mystery/event" }))), refusedAt: 2 },
    { name: "a retired header delta", bytes: text(withEvent(lines, header, (event) => ({ ...event, type: "request/header-delta" }))), refusedAt: header },
    { name: "the retired fallback reason", bytes: text(withEvent(lines, header, (event) => ({ ...event, data: { ...(event.data as object), reason: "fallback" } }))), refusedAt: header },
    {
      name: "a header.system field",
      bytes: text(withEvent(lines, header, (event) => ({ ...event, data: { ...(event.data as object), header: { ...((event.data as { header: object }).header), system: "x" } } }))),
      refusedAt: header,
    },
    {
      name: "a tool schema nested 20,000 levels deep",
      bytes: text(lines.map((line, i) => (i === header - 1 ? line.replace('"parameters":{', `"parameters":{"deep":${deep},`) : line))),
      refusedAt: header,
    },
    { name: "a tool result without its call", bytes: text(withEvent(lines, result, (event) => ({ ...event, data: { ...(event.data as object), callId: "nobody" } }))), refusedAt: result },
    { name: "a turn that never started", bytes: text([lines[0]!, ...lines.slice(2).map((line, i) => line.replace(`"seq":${i + 1},`, `"seq":${i},`))]), refusedAt: 2 },
    { name: "an empty file", bytes: Buffer.alloc(0), refusedAt: 1 },
    { name: "only a torn header", bytes: Buffer.from(lines[0]!.slice(0, 20)), refusedAt: 1 },
    { name: "another format version", bytes: text([lines[0]!.replace(/"version":\d+/, '"version":9'), ...lines.slice(1)]), refusedAt: 1 },
    { name: "not a dsh log", bytes: text(['{"hello":"world"}']), refusedAt: 1 },
    { name: "a last event duplicated", bytes: text([...lines, lines[last - 1]!]), refusedAt: last + 1 },
  ];
  return cases;
}
