import fs from 'node:fs';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(
      `The data directory ${dir} is in use by another process (pid ${pid}). ` +
        'PGlite allows only one process per data directory: stop that process, or set DATA_DIR to another directory.',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  release(): void;
}

const LOCK_FILE = 'server.lock';

/** Whether process `pid` exists (EPERM: it does, as someone else's). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const ABANDONED_TAKEOVER_MS = 10_000;

function pause(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Removes a lock left by `deadPid`. Two starters may both find the same stale lock: only the one
 * holding `server.lock.takeover` (O_EXCL) removes it, and only if it still names the dead pid, so
 * a fresh lock taken by the other starter meanwhile is never deleted.
 */
function removeStaleLock(file: string, deadPid: number | undefined) {
  const guard = `${file}.takeover`;
  try {
    fs.writeFileSync(guard, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const age = Date.now() - (fs.statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > ABANDONED_TAKEOVER_MS) fs.rmSync(guard, { force: true });
    return;
  }
  try {
    if (readPid(file) === deadPid) fs.rmSync(file, { force: true });
  } finally {
    fs.rmSync(guard, { force: true });
  }
}

/**
 * Takes an exclusive lock on `dir` by creating `server.lock` with our pid (O_EXCL).
 * A lock left by a dead process (crash, SIGKILL) is taken over; a live holder makes this throw.
 * Two processes opening one PGlite directory silently lose each other's writes, hence the lock.
 */
export function lockDataDir(dir: string): DataDirLock {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (readPid(file) === process.pid) fs.rmSync(file, { force: true });
      };
      process.once('exit', release);
      return { release };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readPid(file);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        throw new DataDirLockedError(dir, holder);
      }
      removeStaleLock(file, holder); // its owner is gone
      pause(25);
    }
  }
  throw new DataDirLockedError(dir, readPid(file) ?? 0);
}
