import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded database's files are private to this user: directories 0700, files 0600. PGlite's
 * file system sets file modes explicitly (0666, whatever the umask), so in embedded mode chmod is
 * made to honour a 077 umask as `open` and `mkdir` do, and what an earlier release left readable
 * is tightened once at start.
 */

const PRIVATE = 0o077;
let patched = false;

function honourUmask() {
  if (patched) return;
  patched = true;
  const chmodSync = fs.chmodSync;
  const fchmodSync = fs.fchmodSync;
  const mask = (mode: fs.Mode) => (typeof mode === 'number' ? mode & ~PRIVATE : mode);
  fs.chmodSync = (file, mode) => chmodSync(file, mask(mode));
  fs.fchmodSync = (fd, mode) => fchmodSync(fd, mask(mode));
}

/** Directories 0700 and files 0600 under `dir`, from now on and for what is there already. */
export function keepPrivate(dir: string) {
  process.umask(PRIVATE);
  honourUmask();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const walk = (current: string) => {
    fs.chmodSync(current, 0o700);
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) fs.chmodSync(full, 0o600);
    }
  };
  walk(dir);
}
