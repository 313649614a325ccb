/**
 * Ports for the engines and services that the tests and `npm run distributed` start, reserved so
 * that a process killed with SIGKILL gets its ports back when it is started again.
 *
 * A port the OS hands out (`listen(0)`) comes from the ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768–60999 on Linux by default), the same range every
 * outgoing connection's local port comes from: while an engine is down, any process on the machine
 * may take its port, and the engine cannot bind it again ("Address already in use"). So ports are
 * taken BELOW the ephemeral range, where the OS hands out none, and each is claimed with a lock
 * file (`<lock dir>/<port>`, created atomically, holding the owner's process id and start time) so
 * that two test runs on one machine never pick the same. A lock whose owner is gone (a run killed
 * with SIGKILL) is taken over. Locks are given back by `releasePort` (an engine's stop, the stack's
 * close) and at the latest when the process exits.
 *
 * Settings: BARET_PORT_RANGE ("20000-32767"; default from 20000 up to the start of the ephemeral
 * range) and BARET_PORT_LOCK_DIR (default `<tmpdir>/baret-ports`, shared by every run of one user's
 * temp folder on the machine).
 */
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The lowest port handed out by default: well above the well-known and registered services' usual ones. */
const DEFAULT_LOW = 20_000;

/** The OS's ephemeral port range, or null where it cannot be read (not Linux). */
export function ephemeralPortRange(): [number, number] | null {
  try {
    const [lo, hi] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return lo && hi ? [lo, hi] : null;
  } catch {
    return null;
  }
}

/** The range ports are reserved from: BARET_PORT_RANGE, else below the ephemeral range. */
export function reservedPortRange(): [number, number] {
  const setting = process.env.BARET_PORT_RANGE?.match(/^\s*(\d+)\s*-\s*(\d+)\s*$/);
  if (setting) {
    const [lo, hi] = [Number(setting[1]), Number(setting[2])];
    if (lo < 1024 || hi > 65_535 || hi - lo + 1 < 16) throw new Error(`BARET_PORT_RANGE must be a range of at least 16 ports within 1024-65535, not "${process.env.BARET_PORT_RANGE}"`);
    return [lo, hi];
  }
  const ephemeral = ephemeralPortRange() ?? [32_768, 60_999];
  // Below the ephemeral range when there is room there (the usual case); else above it.
  if (ephemeral[0] - 1 - DEFAULT_LOW >= 1000) return [DEFAULT_LOW, ephemeral[0] - 1];
  if (65_535 - ephemeral[1] >= 1000) return [ephemeral[1] + 1, 65_535];
  return [DEFAULT_LOW, 32_767];
}

const lockDir = (): string => process.env.BARET_PORT_LOCK_DIR ?? join(tmpdir(), 'baret-ports');

/** When this process started (clock ticks after boot; /proc), so a reused process id is not taken for the owner. */
function startTimeOf(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: fields counted after its closing parenthesis.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

const me = `${process.pid} ${startTimeOf(process.pid)}`;

/** Whether the owner written in a lock file is still running. */
function ownerAlive(owner: string): boolean {
  const [pidText, started = ''] = owner.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  // Same process id, another process (the id was reused): the owner is gone.
  const now = startTimeOf(pid);
  return !(started && now && started !== now);
}

/** The ports this process holds locks for. */
const held = new Set<number>();
let exitHooked = false;

function lockPath(port: number): string {
  return join(lockDir(), String(port));
}

/** Claims the lock file of `port` for this process; false when another live process holds it. */
function claim(port: number): boolean {
  const dir = lockDir();
  mkdirSync(dir, { recursive: true });
  const path = lockPath(port);
  // Written aside, then linked into place: the lock appears whole, and only one process can link it.
  const mine = join(dir, `.${port}.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(mine, me);
  try {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        linkSync(mine, path);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      let owner: string;
      try {
        owner = readFileSync(path, 'utf8');
      } catch {
        continue; // given back in between: try again
      }
      if (ownerAlive(owner)) return false;
      // The owner is gone: move its lock aside (atomic: one taker wins), and make sure what was moved is the stale one.
      const tomb = `${mine}.stale`;
      try {
        renameSync(path, tomb);
      } catch {
        continue;
      }
      const moved = readFileSync(tomb, 'utf8');
      if (moved !== owner && ownerAlive(moved)) {
        // Another process claimed the port in between: put its lock back, and look elsewhere.
        try {
          linkSync(tomb, path);
        } catch {
          // a third claimed it meanwhile; theirs stands
        }
        unlinkSync(tomb);
        return false;
      }
      unlinkSync(tomb);
    }
    return false;
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // already gone
    }
  }
}

/** Whether nothing listens on 127.0.0.1:`port` now (a process outside this scheme may). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback TCP port reserved for this process: outside the ephemeral range, free now, and locked
 * against every other process that reserves ports this way, until `releasePort` or this process's
 * exit. An engine started again on it after a crash finds it free.
 */
export async function reservePort(): Promise<number> {
  const [lo, hi] = reservedPortRange();
  const size = hi - lo + 1;
  // A random start, then a walk through the range: two runs starting at once rarely even try the same port.
  const start = Math.floor(Math.random() * size);
  for (let i = 0; i < size; i++) {
    const port = lo + ((start + i) % size);
    if (held.has(port) || !claim(port)) continue;
    if (!(await bindable(port))) {
      giveBack(port);
      continue;
    }
    held.add(port);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const p of held) giveBack(p);
      });
    }
    return port;
  }
  throw new Error(`no free port left in ${lo}-${hi} (locks in ${lockDir()})`);
}

function giveBack(port: number): void {
  try {
    // Only our own lock: a stale one of ours may have been taken over by a live process.
    if (readFileSync(lockPath(port), 'utf8') === me) unlinkSync(lockPath(port));
  } catch {
    // already gone
  }
}

/** Gives a port reserved by `reservePort` back (its server is stopped for good). */
export function releasePort(port: number): void {
  if (!held.delete(port)) return;
  giveBack(port);
}
