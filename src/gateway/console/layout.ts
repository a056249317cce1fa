import type { FastifyReply } from 'fastify';
import { ADMIN_PREFIX } from '../admin-scope.js';
import type { ConsoleSection, PageOptions } from './console-section.js';
import { EMPTY_HTML, html } from './html.js';
import { CONSOLE_CSS, CONSOLE_CSS_HASH } from './styles.js';

/** No script runs on a console page; the inline stylesheet is allowed by its hash; forms post to the console only. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src ${CONSOLE_CSS_HASH}`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function sendPage(reply: FastifyReply, sections: readonly ConsoleSection[], readOnly: boolean, options: PageOptions): FastifyReply {
  const navigation = sections.map(
    (section) =>
      html`<li><a href="${ADMIN_PREFIX}/${section.id}"!${section.id === options.section ? html` aria-current="page"` : EMPTY_HTML}>${section.title}</a></li>`,
  );
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${options.title} · Operator console</title>
<style>!${CONSOLE_CSS}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<p class="brand"><a href="${ADMIN_PREFIX}">Operator console</a>!${readOnly ? html` <span class="badge readonly">read-only</span>` : EMPTY_HTML}</p>
<nav aria-label="Console sections"><ul>!${navigation}<li><a href="${ADMIN_PREFIX}/queues">Queues</a></li></ul></nav>
</header>
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
!${options.body}
</main>
<footer class="site"><p>Times are UTC. <a href="${ADMIN_PREFIX}/api/sessions">JSON API</a></p></footer>
</body>
</html>
`;
  return reply
    .code(options.status ?? 200)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'same-origin')
    .header('cache-control', 'no-store')
    .send(page);
}
