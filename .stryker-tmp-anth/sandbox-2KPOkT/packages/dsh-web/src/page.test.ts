import { describe, expect, it } from "vitest";
import { renderPage, scriptSafeJson } from "./page.js";

describe("renderPage", () => {
  it("embeds data that cannot end the script element or break the page", () => {
    const hostile = { text: "</script><script>alert(1)</script> & \u2028" };
    const json = scriptSafeJson(hostile);
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual(hostile);
    const html = renderPage({ title: "a <b> & 'c'", script: "console.log('</script>')", view: hostile as never });
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain("<title>a &#60;b&#62; &#38; &#39;c&#39;</title>");
    expect(html).toContain("console.log('<\\/script>')");
  });

  it("loads nothing from anywhere: styles and script inline, a policy that forbids other sources", () => {
    const html = renderPage({ title: "t", script: "" });
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)=/);
    expect(html).toContain("default-src 'none'");
    expect(html).not.toContain('id="dsh-data"');
  });
});
