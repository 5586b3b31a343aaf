// `npm run openapi`: writes openapi.json, the document GET /openapi.json serves.
// test/docs.test.ts fails while the committed file differs from what the code builds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { openApiDocument } from '../src/controllers/families';
import { VERSION } from '../src/version';

writeFileSync(join(__dirname, '..', 'openapi.json'), `${JSON.stringify(openApiDocument(VERSION), null, 2)}\n`);
