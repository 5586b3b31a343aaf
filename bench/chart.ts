// A dependency-free SVG chart of a bench run: per scenario, bars of req/s and
// of p99 latency, fastcar beside sidecar (and the bare Node ceiling).
interface Bar {
  scenario: string;
  service: string;
  connections: number;
  rps: number;
  p99: number;
}

const COLORS: Record<string, string> = { fastcar: '#1f77b4', sidecar: '#ff7f0e', 'node-http': '#9e9e9e' };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Bars on a log scale: the figures span four orders of magnitude. */
function panel(title: string, groups: [string, Bar[]][], value: (bar: Bar) => number, unit: string, top: number): string[] {
  const width = 1100;
  const rowHeight = 16;
  const labelWidth = 330;
  const max = Math.log10(1 + Math.max(1, ...groups.flatMap(([, bars]) => bars.map(value))));
  const out = [`<text x="10" y="${top}" font-size="15" font-weight="bold">${escapeXml(title)}</text>`];
  let y = top + 12;
  for (const [label, bars] of groups) {
    out.push(`<text x="10" y="${y + 12}" font-size="12">${escapeXml(label)}</text>`);
    for (const bar of bars) {
      const length = Math.max(1, (Math.log10(1 + value(bar)) / max) * (width - labelWidth - 220));
      out.push(`<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${rowHeight - 3}" fill="${COLORS[bar.service] ?? '#555'}"/>`);
      out.push(`<text x="${labelWidth + length + 5}" y="${y + 11}" font-size="11">${value(bar)} ${unit} (${bar.service})</text>`);
      y += rowHeight;
    }
    y += 6;
  }
  return out;
}

export function renderChart(measurements: Bar[]): string {
  const groups = new Map<string, Bar[]>();
  for (const m of measurements) {
    const key = `${m.scenario}, ${m.connections} conn`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const entries = [...groups.entries()];
  const rows = measurements.length * 16 + entries.length * 6 + 40;
  const body = [
    ...panel('requests per second (higher is better; log scale)', entries, (bar) => bar.rps, 'req/s', 24),
    ...panel('p99 latency, ms (lower is better; log scale)', entries, (bar) => bar.p99, 'ms', 24 + rows),
  ];
  const legend = Object.entries(COLORS)
    .map(
      ([name, color], i) =>
        `<rect x="${760 + i * 110}" y="8" width="12" height="12" fill="${color}"/><text x="${776 + i * 110}" y="19" font-size="12">${name}</text>`,
    )
    .join('');
  const height = 2 * rows + 40;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1100" height="${height}" font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>${legend}${body.join('')}</svg>\n`;
}

// `tsx bench/chart.ts`: redraws latest.svg from latest.json.
if (require.main === module) {
  const { readFileSync, writeFileSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const results = JSON.parse(readFileSync(join(__dirname, 'results', 'latest.json'), 'utf8')) as { measurements: Bar[] };
  writeFileSync(join(__dirname, 'results', 'latest.svg'), renderChart(results.measurements));
}
