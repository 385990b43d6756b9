// CPU time of processes on this machine, from /proc (Linux): the benchmarks report where the
// time of each phase went, not only how long it took.
import fs from 'node:fs';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux this runs on

/** User plus system CPU seconds of a process so far, or undefined when it cannot be read. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at field 3: utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU seconds of this process so far (user plus system). */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/** CPU seconds of the processes so far, summed; a process gone or not started counts 0. */
export function totalCpuSeconds(pids: ReadonlyArray<number | undefined>): number {
  return pids.reduce<number>((sum, pid) => sum + (pid === undefined ? 0 : (cpuSeconds(pid) ?? 0)), 0);
}

/** The ids of the running processes whose parent is `pid` (nginx's workers of its master). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The parent is field 4, the second after the command name.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return children;
}

/**
 * The pid of a local MariaDB/MySQL server process, if one runs here: the one started with
 * `--port=<port>` when several run (private instances beside a shared one), else the first found.
 */
export function databaseServerPid(port?: number): number | undefined {
  let first: number | undefined;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (name !== 'mariadbd' && name !== 'mysqld') continue;
      if (port === undefined) return Number(entry);
      first ??= Number(entry);
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(`--port=${port}`)) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return first;
}
