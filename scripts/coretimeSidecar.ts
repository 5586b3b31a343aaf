// What sidecar 20 answers on the coretime chain routes at every height the coretime devnet's
// seeding records: a table of statuses and array sizes on stdout, and sidecar's answers
// at the head saved as JSON (one file a route) for comparing fastcar's with, beside its
// error answers at the other heights (errors.json).
//
//   npx tsx scripts/coretimeSidecar.ts [output folder, default .scratch/sidecar-coretime]
import '../devnet/quiet';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { startCoretimeDevnet } from '../devnet/coretimeChain';
import { startSidecar } from '../harness/processes';
import { seedCoretime } from '../test/support/coretimeState';

const ROUTES = ['info', 'overview', 'leases', 'regions', 'renewals', 'reservations'] as const;
const STEPS = ['before', 'configured', 'reserved', 'leased', 'salesStarted', 'purchased', 'partitioned', 'assigned', 'rotated', 'head'] as const;

/** A route's answer in a few characters: its status, and the length of its array if it has one. */
function summary(route: string, status: number, body: unknown): string {
  if (status !== 200) return String(status);
  const key = route === 'overview' ? 'cores' : route;
  const list = (body as Record<string, unknown>)[key];
  return Array.isArray(list) ? `200 [${list.length}]` : '200';
}

async function main(): Promise<void> {
  const out = process.argv[2] ?? join(process.cwd(), '.scratch', 'sidecar-coretime');
  const devnet = await startCoretimeDevnet({ port: 0 });
  try {
    const state = await seedCoretime(devnet.wsUrl);
    const sidecar = await startSidecar(devnet.wsUrl, '/runtime/spec', {}, 20);
    try {
      mkdirSync(out, { recursive: true });
      const errors: Record<string, Record<string, unknown>> = {};
      console.log(['step', 'height', 'relay', ...ROUTES].join('\t'));
      for (const step of STEPS) {
        const height = state[step];
        const cells: string[] = [];
        for (const route of ROUTES) {
          const response = await fetch(`${sidecar.url}/coretime/${route}?at=${height}`);
          const body: unknown = await response.json();
          cells.push(summary(route, response.status, body));
          if (response.status !== 200) errors[step] = { ...errors[step], [route]: body };
          if (step === 'head') writeFileSync(join(out, `${route}.json`), `${JSON.stringify(body, null, 2)}\n`);
          if (step === 'head' && response.status !== 200) process.exitCode = 1;
        }
        console.log([step, height, state.relayParents[step], ...cells].join('\t'));
      }
      writeFileSync(join(out, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
      writeFileSync(join(out, 'errors.json'), `${JSON.stringify(errors, null, 2)}\n`);
      console.log(`sidecar's answers at the head (${state.head}) are in ${out}`);
    } finally {
      await sidecar.stop();
    }
  } finally {
    await devnet.close();
  }
}

// chopsticks' executor threads outlive the devnet by a while: the script ends when its work does.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
