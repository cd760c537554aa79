/** The frame of every dashboard page: head (stylesheet, icon), the main navigation with sign-out, the title. */
import type { Child } from "hono/jsx";
import { DASHBOARD } from "./guard";

export function Layout(props: { title: string; signedIn?: { tenant: string }; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · edgeval</title>
        <link rel="stylesheet" href={`${DASHBOARD}/assets/app.css`} />
        <link rel="icon" href={`${DASHBOARD}/assets/icon.svg`} type="image/svg+xml" />
      </head>
      <body>
        <header>
          <nav aria-label="Main">
            <strong>edgeval</strong>
            {props.signedIn && <a href={`${DASHBOARD}/runs`}>Runs</a>}
            {props.signedIn && <span>tenant {props.signedIn.tenant}</span>}
            {props.signedIn && (
              <form method="post" action={`${DASHBOARD}/sign-out`}>
                <button type="submit">Sign out</button>
              </form>
            )}
          </nav>
        </header>
        <main>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}
