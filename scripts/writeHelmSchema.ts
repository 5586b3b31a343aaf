// Writes deploy/helm/fastcar/values.schema.json from the settings tables (scripts/helmSchema.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { helmSchema } from './helmSchema';

const file = join(__dirname, '..', 'deploy', 'helm', 'fastcar', 'values.schema.json');
writeFileSync(file, `${JSON.stringify(helmSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
