import { useEffect, useState } from "preact/hooks";
import type { RequestView } from "../view-types.js";
import { imageDataUrl } from "./api.js";
import { linkSeqs } from "./format.js";
import { InlineWire, WireOnDemand } from "./wire-body.js";

/** An attachment image: fetched with this launch's secret (an `<img>` could not send it), or shown inline in an exported page. */
function AttachmentImage({ src, digest }: { src: string; digest: string }) {
  const [shown, setShown] = useState<string | undefined>(src.startsWith("data:") ? src : undefined);
  const [failed, setFailed] = useState<string | undefined>();
  useEffect(() => {
    imageDataUrl(src).then(setShown, (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)));
  }, [src]);
  if (failed !== undefined) return <span class="error">image not shown: {failed}</span>;
  return shown === undefined ? <span>loading the image…</span> : <img src={shown} alt={`attachment ${digest}`} />;
}

/** Prompt tokens as one stacked bar: read from the cache, repeated but not read, new. */
export function TokenBar({ tokens }: { tokens: RequestView["tokens"] }) {
  const total = Math.max(1, tokens.prompt);
  const segment = (kind: string, value: number, label: string) =>
    value > 0 ? <span class={`bar-${kind}`} style={{ width: `${(100 * value) / total}%` }} title={`${value} ${label}`} /> : null;
  return (
    <div class="token-bar-row">
      <div class="token-bar" role="img" aria-label={`${tokens.cacheRead} cached, ${tokens.repeated} repeated but not read, ${tokens.fresh} new`}>
        {segment("cached", tokens.cacheRead, "tokens read from the cache")}
        {segment("repeated", tokens.repeated, "tokens repeating the previous request, not read from the cache")}
        {segment("fresh", tokens.fresh, "new tokens")}
      </div>
      <span class="token-legend">
        {tokens.prompt} prompt tokens: <b class="cached">{tokens.cacheRead} cached</b> · <b class="repeated">{tokens.repeated} repeated, not read</b> · <b class="fresh">{tokens.fresh} new</b>
        {tokens.reported ? "" : " (no usage reported)"}
      </span>
    </div>
  );
}

/** One request: its token bar, header snapshot, what changed since the previous request, its break, images and wire body. */
const AGREEMENT: Readonly<Record<string, string>> = {
  agree: "agrees with the log",
  disagree: "disagrees with the log",
  "provider-only": "no logged event explains it: an eviction on the provider's side, or a bug in one of the two",
  "no-verdict": "no verdict to compare",
};

/** The provider's own diagnosis beside dsh's attribution. */
function ProviderVerdict({ verdict }: { verdict: NonNullable<RequestView["diagnosis"]> }) {
  const said = verdict.verdict === "miss" ? `miss (${verdict.reason ?? "no reason"}${verdict.missedTokens === undefined ? "" : `, ${verdict.missedTokens} tokens`})` : verdict.verdict;
  return (
    <div class={`provider-verdict ${verdict.agreement}`} data-agreement={verdict.agreement}>
      provider's diagnosis: {said} — {AGREEMENT[verdict.agreement] ?? verdict.agreement}
    </div>
  );
}

/** One request; on a live page (`live`), a wire body the page does not carry is asked of the server when opened. */
export function RequestCard({ request, live }: { request: RequestView; live?: { readonly sessionId: string } | undefined }) {
  return (
    <div class={`request-card${request.break === undefined ? "" : request.break.minor ? " has-minor-break" : " has-break"}`} data-request={request.number}>
      <div class="request-title">
        request {request.number} · turn {request.turn} step {request.step} · {request.provider}/{request.model}
      </div>
      <TokenBar tokens={request.tokens} />
      {request.header === undefined ? null : (
        <div class="header-note">
          header snapshot <a href={`#seq=${request.header.seq}`}>{request.header.reason}</a>
          {request.header.changes.length === 0 ? " (no change)" : `: ${request.header.changes.join("; ")}`}
        </div>
      )}
      {request.break === undefined ? null : (
        <div class={`break-card${request.break.minor ? " minor" : ""}`} data-break={request.number}>
          <b>{request.break.minor ? "Small cache break" : "Cache break"}</b>: this request repeats {request.break.repeatedTokens} of the previous request's {request.break.previousTokens} prompt tokens, then differs.
          {request.break.explanations.length === 0 ? (
            <div class="unexplained">No logged event explains it.</div>
          ) : (
            <ul>
              {request.break.explanations.map((line) => (
                <li key={line}>{linkSeqs(line)}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      {request.misses.length === 0 ? null : <div class="misses">cache miss: {request.misses.join("; ")}</div>}
      {request.diagnosis === undefined || (request.break === undefined && request.diagnosis.agreement === "agree") ? null : <ProviderVerdict verdict={request.diagnosis} />}
      <div class="node-diff">
        <div class="node-summary">
          vs the previous request: {request.kept} message(s) kept, {request.nodes.filter((node) => node.status === "appended").length} appended, {request.nodes.filter((node) => node.status === "replaced").length} replaced
          {request.removed > 0 ? `, ${request.removed} removed` : ""}
        </div>
        {request.nodes.map((node) => (
          <div key={node.seq} class={`node node-${node.status}`}>
            <span class="badge">{node.status}</span> node {node.node} ({node.role}) ←{" "}
            <a href={`#seq=${node.seq}`} class="seq-link">
              seq {node.seq}
            </a>
            <pre>{node.text}</pre>
          </div>
        ))}
      </div>
      {request.images.map((image) =>
        image.src === undefined ? (
          <div key={image.digest} class="error">
            image {image.digest} not shown: {image.error}
          </div>
        ) : (
          <figure key={image.digest}>
            <AttachmentImage src={image.src} digest={image.digest} />
            <figcaption>verified {image.digest.slice(0, 23)}… ({image.mediaType})</figcaption>
          </figure>
        ),
      )}
      {request.wire !== undefined ? (
        <InlineWire wire={{ wire: request.wire, wireBytes: request.wireBytes ?? new TextEncoder().encode(request.wire).length }} />
      ) : live !== undefined ? (
        <WireOnDemand sessionId={live.sessionId} number={request.number} />
      ) : null}
    </div>
  );
}
