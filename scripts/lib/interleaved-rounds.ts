// Shared by the ingest benchmarks: the contestants of a run measured in interleaved rounds, each
// round on the next slice of the work and in a rotating order, so that whatever else runs on the
// machine weighs on each of them alike; with the CPU seconds every process group spent in each
// contestant's steps (read before and after each step, e.g. from /proc by process-cpu.ts). A
// contestant may settle after its step, outside its timing (e.g. its background work finishing),
// so that none of it weighs on the contestant after it; what settling cost is kept apart.
import { log } from './bench-service.js';

/** One round's steps: each contestant's name, a run over the round's slice answering its seconds, and what settles it after, untimed. */
export type RoundSteps<Name extends string> = Array<[Name, () => Promise<number>, (() => Promise<void>)?]>;

export interface RoundsResult<Name extends string, Group extends string> {
  /** Seconds of each contestant, one entry a round. */
  seconds: Record<Name, number[]>;
  /** CPU seconds each process group spent during each contestant's steps, over all rounds. */
  cpu: Record<Name, Record<Group, number>>;
  /** Seconds and CPU seconds of each contestant's settling, over all rounds (zero without one). */
  settling: { seconds: Record<Name, number>; cpu: Record<Name, Record<Group, number>> };
}

/**
 * Splits `items` into `rounds` slices; for each, `steps(slice)` (work done there, e.g. preparing
 * the slice, is outside the timing) gives the contestants' runs, run one after the other starting
 * one further each round.
 */
export async function interleavedRounds<T, Name extends string, Group extends string>(
  items: T[],
  rounds: number,
  names: readonly Name[],
  groups: Record<Group, () => number>,
  steps: (slice: T[]) => RoundSteps<Name>,
): Promise<RoundsResult<Name, Group>> {
  const seconds = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Name, number[]>;
  const groupNames = Object.keys(groups) as Group[];
  const cpuTotals = () =>
    Object.fromEntries(names.map((name) => [name, Object.fromEntries(groupNames.map((group) => [group, 0]))])) as Record<
      Name,
      Record<Group, number>
    >;
  const cpu = cpuTotals();
  const settling = { seconds: Object.fromEntries(names.map((name) => [name, 0])) as Record<Name, number>, cpu: cpuTotals() };
  const measure = async <R>(into: Record<Group, number>, work: () => Promise<R>): Promise<R> => {
    const before = groupNames.map((group) => groups[group]());
    const result = await work();
    groupNames.forEach((group, index) => (into[group] += groups[group]() - before[index]));
    return result;
  };
  const perRound = Math.ceil(items.length / rounds);
  for (let round = 0; round < rounds; round += 1) {
    const slice = items.slice(round * perRound, (round + 1) * perRound);
    if (slice.length === 0) break;
    const roundSteps = steps(slice);
    for (let step = 0; step < roundSteps.length; step += 1) {
      const [name, run, settle] = roundSteps[(round + step) % roundSteps.length];
      seconds[name].push(await measure(cpu[name], run));
      if (settle) {
        const started = performance.now();
        await measure(settling.cpu[name], settle);
        settling.seconds[name] += (performance.now() - started) / 1000;
      }
    }
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    log(`round ${round + 1}/${rounds}: ${names.map((name) => `${name} ${sum(seconds[name]).toFixed(1)} s`).join(', ')} so far`);
  }
  return { seconds, cpu, settling };
}
