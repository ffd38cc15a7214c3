/** The app's stylesheet, inlined into every page. */
export const APP_STYLES = `
:root { font: 14px/1.45 system-ui, sans-serif; color: #1d232a; background: #fafbfc; scroll-padding-top: 12px; }
body { margin: 0 auto; max-width: 1100px; padding: 16px 24px 80px; }
a { color: #0b5cad; }
h1 { font-size: 22px; margin: 8px 0; word-break: break-all; }
h2 { font-size: 16px; margin: 18px 0 6px; border-bottom: 1px solid #d8dde3; }
pre { white-space: pre-wrap; word-break: break-word; background: #f1f3f5; padding: 6px 8px; margin: 4px 0; max-height: 320px; overflow: auto; font-size: 12px; }
input.filter { width: 100%; max-width: 480px; box-sizing: border-box; padding: 6px 8px; font: inherit; }
p.count { color: #4a5560; font-size: 12px; margin: 6px 0; }
table.sessions .file { color: #4a5560; font-size: 12px; }
table.sessions td.prompt { max-width: 360px; overflow-wrap: anywhere; }
table.sessions { border-collapse: collapse; width: 100%; }
table.sessions th, table.sessions td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #e3e7eb; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
.facts { color: #4a5560; }
.breaks-summary { padding: 8px 10px; background: #fff6e5; border: 1px solid #f0d29b; border-radius: 6px; }
.pager { display: flex; gap: 8px; align-items: center; margin: 12px 0; }
.pager select { flex: 1; max-width: 40em; }
.break-link { margin-right: 8px; font-weight: 600; }
ol.timeline { list-style: none; padding: 0; margin: 0; }
.entry { padding: 4px 6px; border-left: 3px solid transparent; }
.entry.selected { background: #eaf3ff; border-left-color: #0b5cad; }
.entry .seq { display: inline-block; width: 46px; color: #6a7580; font-variant-numeric: tabular-nums; }
.entry .session-link { margin-left: 8px; font-size: 12px; }
.entry details { display: inline-block; margin-left: 8px; color: #6a7580; }
.entry details[open] { display: block; margin-left: 46px; }
.kind-header .label { font-weight: 600; color: #5b3cc4; }
.kind-compaction .label, .kind-trim .label { color: #9a5b00; }
.kind-retry .label, .kind-interruption .label { color: #b42318; }
.kind-fork .label { font-weight: 600; color: #0b7a4b; }
.request-card { margin: 6px 0 10px 46px; padding: 8px 10px; background: #fff; border: 1px solid #d8dde3; border-radius: 6px; }
.request-card.has-break { border-color: #e5484d; }
.request-card.has-minor-break { border-color: #f5a524; }
.request-title { font-weight: 600; }
.token-bar-row { margin: 6px 0; }
.token-bar { display: flex; height: 14px; width: 100%; background: #eef0f2; border-radius: 3px; overflow: hidden; }
.bar-cached { background: #2f9e44; } .bar-repeated { background: #f08c00; } .bar-fresh { background: #4c6ef5; }
.token-legend { font-size: 12px; color: #4a5560; }
b.cached { color: #2f9e44; } b.repeated { color: #c26d00; } b.fresh { color: #3b5bdb; }
.break-card { margin: 6px 0; padding: 6px 10px; background: #fff0f0; border: 1px solid #f5a8ab; border-radius: 6px; }
.break-card.minor { background: #fff8eb; border-color: #f5d08a; }
.break-card ul { margin: 4px 0 0; padding-left: 18px; }
.misses { color: #9a5b00; font-size: 12px; }
.provider-verdict { font-size: 12px; color: #2f6b2f; }
.provider-verdict.disagree, .provider-verdict.provider-only { color: #a11; font-weight: 600; }
.provider-verdict.no-verdict { color: #666; }
.node-summary { color: #4a5560; font-size: 12px; }
.node { margin: 4px 0; }
.badge { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 11px; color: #fff; background: #6a7580; }
.node-appended .badge { background: #4c6ef5; } .node-replaced .badge { background: #e8590c; }
figure { margin: 6px 0; } figure img { max-width: 240px; image-rendering: pixelated; border: 1px solid #d8dde3; min-width: 48px; }
figcaption { font-size: 12px; color: #4a5560; }
.what-if-open { margin: 4px 0 0 40px; font-size: 12px; }
.what-if { margin: 6px 0 6px 40px; padding: 8px; border: 1px dashed #b9c2cc; border-radius: 6px; }
.what-if textarea { width: 100%; min-height: 48px; box-sizing: border-box; margin: 6px 0; font: inherit; }
.what-if-table { border-collapse: collapse; font-size: 12px; margin: 6px 0; }
.what-if-table th, .what-if-table td { padding: 2px 6px; border-bottom: 1px solid #e3e7eb; text-align: right; }
.what-if-table td.note { text-align: left; color: #8a2b06; }
.what-if-table tr.total td { font-weight: 600; }
.what-if-honesty { color: #4a5560; font-size: 12px; margin: 2px 0; }
.composer { position: sticky; bottom: 0; margin-top: 24px; padding: 10px; background: #fff; border: 1px solid #b9c2cc; border-radius: 8px; }
.composer textarea { width: 100%; min-height: 64px; box-sizing: border-box; margin: 6px 0; font: inherit; }
.composer .picker label { margin-right: 12px; }
.composer .explicit { color: #4a5560; font-size: 12px; }
.error, .unexplained { color: #b42318; }
`;
