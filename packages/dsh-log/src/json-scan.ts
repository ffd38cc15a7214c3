/**
 * The first key that appears twice in one object of a JSON text, with the line's object path, or
 * `undefined`. `JSON.parse` keeps the last of duplicate keys silently; a log line must not have any.
 * Only called on lines already known not to be in the writer's form, so it need not be fast.
 */
export function findDuplicateKey(text: string): string | undefined {
  const objects: Set<string>[] = [];
  const expectingKey: boolean[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const top = objects.length - 1;
      if (top >= 0 && expectingKey[top] === true) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (objects[top]!.has(key)) return key;
        objects[top]!.add(key);
        expectingKey[top] = false;
      }
      i = end;
    } else if (char === "{" || char === "[") {
      objects.push(char === "{" ? new Set() : new Set(["\u0000array"]));
      expectingKey.push(char === "{");
    } else if (char === "}" || char === "]") {
      objects.pop();
      expectingKey.pop();
    } else if (char === "," && objects.length > 0 && !objects[objects.length - 1]!.has("\u0000array")) {
      expectingKey[expectingKey.length - 1] = true;
    }
  }
  return undefined;
}
