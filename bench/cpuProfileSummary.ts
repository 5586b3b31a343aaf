// Reads what `node --cpu-prof` wrote and says where the busy time went: self time per
// function (idle left out), the biggest first, as shares of the busy time. Used by
// `npm run bench:proxy -- --profile`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..');

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame }[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  /** Sampled time not idle, in ms. */
  busyMs: number;
  /** The functions with the most self time: name, ms, share of the busy time. */
  top: { fn: string; ms: number; share: number }[];
}

function frameName({ functionName, url, lineNumber }: CallFrame): string {
  const file = url ? relative(ROOT, url.replace('file://', '')) : '(native)';
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** The profile `dir` holds (the one process profiled there). */
export function summariseProfile(dir: string, count = 30): ProfileSummary {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}: the process was not stopped by a signal it handles`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
  const names = new Map(profile.nodes.map((node) => [node.id, frameName(node.callFrame)]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i + 1] ?? 0;
    const name = names.get(id)!;
    if (name.startsWith('(idle)')) return;
    busy += us;
    self.set(name, (self.get(name) ?? 0) + us);
  });
  const top = [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([fn, us]) => ({ fn, ms: Math.round(us / 1000), share: Math.round((us / busy) * 1000) / 10 }));
  return { busyMs: Math.round(busy / 1000), top };
}
