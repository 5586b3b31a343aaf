// What /metrics shows of the tip: its height, and what is kept for it. Answers
// at the tip count in the cache's hits and misses like any other.
import { Gauge, type Registry } from 'prom-client';

import type { TipAnswers } from './tipAnswers';
import type { TipTracker } from './tipTracker';

export function registerTipMetrics(registry: Registry, tracker: TipTracker, answers: TipAnswers): void {
  new Gauge({
    name: 'proxy_tip_height',
    help: 'Height of the best block that calls about "latest" state are answered at (-1: none followed)',
    registers: [registry],
    collect() {
      this.set(tracker.current()?.number ?? -1);
    },
  });
  new Gauge({
    name: 'proxy_tip_cache_bytes',
    help: 'Memory the answers kept for the tip take, as counted',
    registers: [registry],
    collect() {
      this.set(answers.bytes);
    },
  });
  new Gauge({
    name: 'proxy_tip_cache_entries',
    help: 'Answers kept for the tip',
    registers: [registry],
    collect() {
      this.set(answers.size);
    },
  });
}
