// GET /openapi.json, and GET /docs: the document rendered by Swagger UI, every
// file served from this process (no CDN), so the page works offline.
import { dirname } from 'node:path';
import express, { Router } from 'express';

import { respond, type Reply } from './reply';

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>fastcar API</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="api"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/start.js"></script>
  </body>
</html>
`;

// Renders this server's own document.
const START = "window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api', deepLinking: true });\n";

/** Serves `openApi` (the document the route families make: FAMILIES in controllers/families.ts) and the page that renders it. */
export function docsRouter(openApi: Record<string, unknown>): Router {
  const router = Router();
  const document = JSON.stringify(openApi);
  // The folder only: requiring the package's index would run its whole browser bundle
  // in this process (a third of a second at start, and the heap it leaves).
  const assets = dirname(require.resolve('swagger-ui-dist/package.json'));
  // Served again after an upgrade: cached, but checked.
  const fixed = (body: string, contentType: string): Reply => ({ body: Buffer.from(body), contentType, cacheControl: 'no-cache' });
  const answers: Record<string, Reply> = {
    '/openapi.json': fixed(document, 'application/json; charset=utf-8'),
    '/docs': fixed(PAGE, 'text/html; charset=utf-8'),
    '/docs/start.js': fixed(START, 'application/javascript; charset=utf-8'),
  };
  for (const [path, reply] of Object.entries(answers)) router.get(path, (req, res) => respond(req, res, reply));
  router.use('/docs/assets', express.static(assets, { index: false, maxAge: '1h' }));
  return router;
}
