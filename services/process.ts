/**
 * Running a local service as a detached process group: pid file, log file, liveness, port checks and stop.
 * Each service module (kafka/, clickhouse/, alertmanager/) builds on this and adds its own health check.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from './errors.ts';

export interface ProcessPaths {
  pidFile: string;
  logFile: string;
}

export function processPaths(home: string, name: string): ProcessPaths {
  return { pidFile: join(home, 'run', `${name}.pid`), logFile: join(home, 'logs', `${name}.log`) };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid recorded for a service if that process is still alive; a stale pid file is removed. */
export function runningPid(paths: ProcessPaths): number | undefined {
  if (!existsSync(paths.pidFile)) return undefined;
  const pid = Number(readFileSync(paths.pidFile, 'utf8').trim());
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return pid;
  rmSync(paths.pidFile, { force: true });
  return undefined;
}

/** True when something accepts TCP connections on host:port. */
export function portOpen(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = createConnection({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolvePort(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** True when the port can be bound on host (nobody listens there). */
export function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolveFree) => {
    const server = createServer();
    server.once('error', () => resolveFree(false));
    server.listen(port, host, () => server.close(() => resolveFree(true)));
  });
}

/** A free TCP port on loopback, as the kernel hands it out. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

/** A base port with `count` free ports from it (the extra brokers and their controllers sit side by side). */
export async function freePortRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no run of ${count} free ports found`);
}

export async function assertPortsFree(service: string, ports: { port: number; envVar: string }[]): Promise<void> {
  for (const { port, envVar } of ports) {
    if (!(await portFree(port))) {
      throw new ServiceError(
        service,
        `port ${port} is already taken by another process`,
        `stop that process (\`ss -ltnp 'sport = :${port}'\` shows it) or set ${envVar} to a free port`,
      );
    }
  }
}

export function commandExists(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Starts `cmd args` in its own process group, output appended to the log file, and records its pid. */
export function startDetached(paths: ProcessPaths, cmd: string, args: string[], env?: NodeJS.ProcessEnv): number {
  mkdirSync(dirname(paths.pidFile), { recursive: true });
  mkdirSync(dirname(paths.logFile), { recursive: true });
  const out = openSync(paths.logFile, 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', out, out], env: env ?? process.env });
  if (child.pid === undefined) throw new Error(`could not start ${cmd}`);
  child.unref();
  writeFileSync(paths.pidFile, `${child.pid}\n`);
  return child.pid;
}

/** Polls `healthy` until it answers true, the process dies, or the deadline passes. */
export async function waitHealthy(
  service: string,
  pid: number,
  healthy: () => Promise<boolean>,
  timeoutMs: number,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await healthy()) return;
    if (!isAlive(pid)) {
      throw new ServiceError(service, 'the process exited during start-up', `read its log: ${logFile}`);
    }
    await sleep(250);
  }
  throw new ServiceError(service, `not healthy after ${Math.round(timeoutMs / 1000)} s`, `read its log: ${logFile}`);
}

/** SIGTERM to the whole process group, then SIGKILL after the grace period. Leaves no process behind. */
export async function stopProcessGroup(paths: ProcessPaths, graceMs = 10_000): Promise<boolean> {
  const pid = runningPid(paths);
  if (pid === undefined) return false;
  const signalGroup = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {}
    }
  };
  signalGroup('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(pid)) signalGroup('SIGKILL');
  while (isAlive(pid)) await sleep(50);
  rmSync(paths.pidFile, { force: true });
  return true;
}
