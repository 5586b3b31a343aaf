// The table that fastcar's settings (src/config.ts) and the proxy's
// (src/proxy/proxyConfig.ts) are each declared in, once: a setting's variables,
// how its value is read and checked, its default and its `--help` line. The
// variable lists the deployment files are checked against, the defaults and
// `--help` are all derived from a table, so they cannot disagree.
export class ConfigError extends Error {}

export type Env = Record<string, string | undefined>;

export interface Setting<T> {
  /** The variables read, the first one set winning: the own name first, then sidecar's or an alias. */
  names: readonly string[];
  /** What `--help` says of it, default included. */
  help: string;
  /** Its value when nothing sets it. */
  fallback: T;
  /** Its value from the first of its variables that is set, else `base` (the fallback, or what the proxy's config file says). */
  read(env: Env, base: T): T;
  /** Rules on the value wherever it came from: the proxy's config file is not read through `read`. */
  check?(value: T, key: string): void;
}

/** One setting for each key of the configuration, in `--help` order; a missing or mistyped one does not compile. */
export type Table<C> = { readonly [K in keyof Required<C>]: Setting<C[K]> };

/** What hosted providers were measured to take over HTTP(S): fastcar's node client and the proxy's http(s) upstreams both start from it. */
export const HTTP_NODE_LIMITS = { maxBatch: 100, maxInFlight: 20 } as const;

export function pick(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

export const invalid = (names: readonly string[], raw: string, rule: string) => new ConfigError(`${names[0]}=${raw} is not valid: ${rule}`);

export function text(names: readonly string[], fallback: string, help: string): Setting<string> {
  return { names, fallback, help: `${help} (default ${fallback})`, read: (env, base) => pick(env, names) ?? base };
}

export function optionalText(names: readonly string[], help: string): Setting<string | undefined> {
  return { names, fallback: undefined, help, read: (env, base) => pick(env, names) ?? base };
}

/** A note on the default value itself ("0: off") reads as one with it. */
function withDefault(help: string, fallback: number, note: string): string {
  return `${help} (default ${note.startsWith(`${fallback}:`) ? note : `${fallback}${note ? `; ${note}` : ''}`})`;
}

/** A whole number within bounds, checked as it is read. */
export function whole(names: readonly string[], fallback: number, [min, max]: [number, number], help: string, note = ''): Setting<number> {
  return {
    names,
    fallback,
    help: withDefault(help, fallback, note),
    read(env, base) {
      const raw = pick(env, names);
      if (raw === undefined) return base;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < min || value > max) throw invalid(names, raw, `use a whole number from ${min} to ${max}`);
      return value;
    },
  };
}

/**
 * A whole number whose bounds are checked on the value in the end, named by its key, so
 * that one from the proxy's config file is held to them too.
 */
export function count(names: readonly string[], fallback: number, help: string, bounds: { min?: number; max?: number } = {}, note = ''): Setting<number> {
  const { min, max } = bounds;
  return {
    names,
    fallback,
    help: withDefault(help, fallback, note),
    read(env, base) {
      const raw = pick(env, names);
      if (raw === undefined) return base;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 0) throw invalid(names, raw, 'use a whole number');
      return value;
    },
    check(value, key) {
      if (min === undefined) return;
      if (max === undefined ? !(value >= min) : !(value >= min && value <= max)) {
        throw new ConfigError(max === undefined ? `${key} must be at least ${min}` : `${key} must be between ${min} and ${max}`);
      }
    },
  };
}

export function flag(names: readonly string[], fallback: boolean, help: string): Setting<boolean> {
  return {
    names,
    fallback,
    help: `${help} (default ${fallback})`,
    read(env, base) {
      const raw = pick(env, names);
      if (raw === undefined) return base;
      if (raw !== 'true' && raw !== 'false') throw invalid(names, raw, 'use true or false');
      return raw === 'true';
    },
  };
}

/** A port, or `off` for none. */
export function portOrOff(names: readonly string[], fallback: number, help: string): Setting<number | undefined> {
  return {
    names,
    fallback,
    help: `${help} (default ${fallback}; 0: any free port; off: none)`,
    read(env, base) {
      const raw = pick(env, names);
      if (raw === 'off') return undefined;
      if (raw === undefined) return base;
      const value = Number(raw);
      if (!Number.isInteger(value) || value < 0 || value > 65535) throw invalid(names, raw, 'use a whole number from 0 to 65535 or off');
      return value;
    },
  };
}

export const splitList = (raw: string) =>
  raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

export function variablesOf<C>(table: Table<C>): readonly string[] {
  return Object.values<Setting<unknown>>(table).flatMap((setting) => setting.names);
}

export function defaultsOf<C>(table: Table<C>): C {
  const defaults = {} as Record<keyof C, unknown>;
  for (const key of Object.keys(table) as (keyof C)[]) defaults[key] = table[key].fallback;
  return defaults as C;
}

/** Every setting read over `base` (the defaults unless told), then every value checked. */
export function readTable<C>(table: Table<C>, env: Env, base: C = defaultsOf(table)): C {
  const keys = Object.keys(table) as (keyof C)[];
  const config = {} as C;
  for (const key of keys) config[key] = table[key].read(env, base[key]);
  for (const key of keys) table[key].check?.(config[key], String(key));
  return config;
}

const NAME_COLUMN = 41;
const LINE_WIDTH = 92;

/** A setting's `--help` lines: its names, then what it does, wrapped beside them. */
function helpLines({ names, help }: Setting<unknown>): string {
  const label = `  ${names.join(' / ')}`;
  const lines: string[] = [];
  let line = '';
  for (const word of help.split(' ')) {
    if (line && NAME_COLUMN + line.length + 1 + word.length > LINE_WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  const first = label.length < NAME_COLUMN ? `${label.padEnd(NAME_COLUMN)}${lines[0]}` : `${label}\n${' '.repeat(NAME_COLUMN)}${lines[0]}`;
  return [first, ...lines.slice(1).map((rest) => `${' '.repeat(NAME_COLUMN)}${rest}`)].join('\n');
}

export function helpOf<C>(table: Table<C>): string {
  return Object.values<Setting<unknown>>(table).map(helpLines).join('\n');
}
