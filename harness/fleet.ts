// A fleet as an operator runs one, for the fleet test and bench: fastcar replicas in
// processes of their own sharing one Redis, each reaching the node through a counting
// relay of its own (so the node calls of each are known), nginx in front balancing
// over them, and a client polling the head through it.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, startMainProcess } from './processes';
import { startTap, type RpcTap, type TapRoute } from './rpcTap';

const ROOT = join(__dirname, '..');

export interface Replica {
  url: string;
  metricsUrl: string;
  relay: RpcTap;
  pid: number;
  /** Everything it has printed (its warnings and errors). */
  output(): string;
  /** SIGKILL: gone at once, as a crashed pod, its leases left to lapse. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** One fastcar replica from the sources, behind an RPC tap to `nodeUrl` (which `route` may steer). */
export async function startReplica(nodeUrl: string, env: Record<string, string>, route?: TapRoute): Promise<Replica> {
  const relay = await startTap(nodeUrl, 0, 0, route);
  const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
  const started = await startMainProcess(
    {
      FASTCAR_NODE_URL: relay.url,
      FASTCAR_PORT: String(port),
      FASTCAR_METRICS_PORT: String(metricsPort),
      FASTCAR_LOG_LEVEL: 'warn',
      // Filling the index back reads every block of the devnet at start: calls that would blur the count.
      FASTCAR_EXTRINSIC_INDEX_BLOCKS: '0',
      ...env,
    },
    'fastcar ready',
  );
  const { child } = started;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: started.url,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    relay,
    pid: started.pid,
    output: started.output,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      await relay.close();
    },
    async stop() {
      await started.stop();
      await relay.close();
    },
  };
}

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

/** Installs nginx (Debian's package) if it is missing, as the tests install redis-server. */
export function ensureNginx(): void {
  execFileSync('bash', [join(ROOT, 'scripts', 'ensure-package.sh'), 'nginx', 'nginx'], { stdio: 'inherit' });
}

/**
 * nginx on a free port, round-robin over `upstreams` (base URLs), configured as
 * deploy/nginx.conf is: a GET that fails on one replica (refused, reset) is tried on the next.
 */
export async function startNginx(upstreams: string[]): Promise<Balancer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fastcar-nginx-'));
  const servers = upstreams.map((url) => `    server ${new URL(url).host} max_fails=1 fail_timeout=10s;`).join('\n');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${join(dir, kind)};`).join('\n');
  // Started by root, its workers would run as nobody, who cannot write in this directory.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const config = `${user}worker_processes 1;
error_log ${join(dir, 'error.log')} warn;
pid ${join(dir, 'nginx.pid')};
events { worker_connections 1024; }
http {
  access_log off;
${temp}
  upstream fastcar {
${servers}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://fastcar;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_next_upstream error timeout http_502 http_503;
      proxy_read_timeout 60s;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), config);
  const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface PollFailure {
  path: string;
  /** The status, or the error's message when there was no answer. */
  status: number | string;
}

/**
 * A client following the head: a poll is `/blocks/head` and then `/blocks/{n}` of the
 * newest head it has seen, each asked of the next of `baseUrls` in turn (one URL: a
 * balancer). Polls are made a given number of times, or on a fixed schedule: two runs
 * put the same load on the fleet whatever the answers take.
 */
export class HeadPoller {
  answered = 0;
  readonly failures: PollFailure[] = [];
  /** The newest head height seen. */
  head = -1;
  private turn = 0;

  constructor(private readonly baseUrls: string[]) {}

  async poll(): Promise<void> {
    const head = (await this.ask('/blocks/head')) as { number?: string } | undefined;
    if (head?.number) this.head = Math.max(this.head, Number(head.number));
    if (this.head >= 0) await this.ask(`/blocks/${this.head}`);
  }

  /** `count` polls one after another, `gapMs` apart. */
  async rounds(count: number, gapMs: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await this.poll();
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
  }

  /** A poll every `periodMs`, whether the last has been answered or not, until the returned function is called. */
  every(periodMs: number): () => Promise<void> {
    const inFlight = new Set<Promise<void>>();
    const timer = setInterval(() => {
      const poll = this.poll().finally(() => inFlight.delete(poll));
      inFlight.add(poll);
    }, periodMs);
    return async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    };
  }

  private async ask(path: string): Promise<unknown> {
    const url = this.baseUrls[this.turn++ % this.baseUrls.length] + path;
    try {
      const response = await fetch(url);
      const text = await response.text();
      if (response.status !== 200) {
        this.failures.push({ path, status: response.status });
        return undefined;
      }
      this.answered += 1;
      return JSON.parse(text);
    } catch (error) {
      this.failures.push({ path, status: (error as Error).message });
      return undefined;
    }
  }
}

/** Node calls so far across `replicas`, in all and of one method. */
export function callsOf(replicas: Replica[], method?: string): number {
  return replicas.reduce((sum, replica) => sum + (method ? (replica.relay.counts.methods[method] ?? 0) : replica.relay.counts.calls), 0);
}
