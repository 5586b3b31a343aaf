// Each setting is declared once (src/config.ts): the variable list, the defaults
// and `--help` come from that one declaration, so they cannot disagree.
import { CONFIG_VARIABLES, HELP, loadConfig } from '../../src/config';

describe('the settings table', () => {
  it('names each variable once, and --help names every one of them', () => {
    expect(new Set(CONFIG_VARIABLES).size).toBe(CONFIG_VARIABLES.length);
    for (const name of CONFIG_VARIABLES) expect([name, HELP.includes(name)]).toEqual([name, true]);
  });

  it('states in --help the defaults loadConfig applies', () => {
    const defaults = loadConfig({});
    const line = (name: string) => HELP.split(/\n(?=  [A-Z])/).find((entry) => entry.trim().startsWith(name))?.replace(/\s+/g, ' ') ?? '';
    expect(line('FASTCAR_PORT')).toContain(`(default ${defaults.port})`);
    expect(line('FASTCAR_CACHE_MAX_BYTES')).toContain(`(default ${defaults.cacheMaxBytes})`);
    expect(line('FASTCAR_METRICS_PORT')).toContain(`(default ${defaults.metricsPort};`);
    expect(line('FASTCAR_HEADERS_TIMEOUT_MS')).toContain(`(default ${defaults.headersTimeoutMs})`);
    expect(line('FASTCAR_STRICT_PARAMS')).toContain(`(default ${defaults.strictParams})`);
  });
});
