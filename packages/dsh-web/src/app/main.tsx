import { render } from "preact";
import type { SessionView } from "../view-types.js";
import { keepLaunchToken, loadSession } from "./api.js";
import { SessionPage } from "./session-page.js";
import { SessionsList } from "./sessions-list.js";

/** Boots the app: a static page renders its embedded session; the live app routes by path. */
function boot(): void {
  const root = document.getElementById("app")!;
  const embedded = document.getElementById("dsh-data");
  if (embedded !== null) {
    const view = JSON.parse(embedded.textContent ?? "") as SessionView;
    render(<SessionPage load={async () => view} live={false} />, root);
    return;
  }
  const match = /^\/sessions\/([^/]+)$/.exec(location.pathname);
  if (match === null) {
    render(
      <>
        <h1>Sessions</h1>
        <SessionsList />
      </>,
      root,
    );
    return;
  }
  const id = decodeURIComponent(match[1]!);
  render(
    <>
      <nav>
        <a href="/">← sessions</a>
      </nav>
      <SessionPage load={(at) => loadSession(id, at)} live={true} />
    </>,
    root,
  );
}

keepLaunchToken();
boot();
