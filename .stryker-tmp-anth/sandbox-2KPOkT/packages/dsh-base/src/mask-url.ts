/**
 * A URL fit to print: its password (if any) replaced by `***`. A string that does not parse keeps
 * only its scheme (`postgres://…`), since what follows may hold a password in a form URL cannot read.
 */
export function maskUrlPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.href;
  } catch {
    const scheme = url.indexOf("://");
    return scheme < 0 ? "…" : `${url.slice(0, scheme)}://…`;
  }
}
