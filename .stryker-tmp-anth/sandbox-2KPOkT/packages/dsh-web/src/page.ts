import { APP_STYLES } from "./styles.js";
import type { SessionView } from "./view-types.js";

/** `json` made safe inside a `<script>` element: no `<`, `>`, `&` or line separators as themselves. */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The HTML of a page: the stylesheet and the app script inlined, and for a static page the session
 * view embedded as JSON, so the file needs nothing else, from the network or from disk.
 */
export function renderPage(options: { readonly title: string; readonly script: string; readonly view?: SessionView }): string {
  const data = options.view === undefined ? "" : `<script type="application/json" id="dsh-data">${scriptSafeJson(options.view)}</script>\n`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'">
<title>${escapeHtml(options.title)}</title>
<style>${APP_STYLES}</style>
</head>
<body>
<div id="app"></div>
${data}<script type="module">${options.script.replace(/<\/script/gi, "<\\/script")}</script>
</body>
</html>
`;
}
