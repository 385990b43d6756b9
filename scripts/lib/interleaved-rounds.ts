// Shared by the ingest benchmarks: the contestants of a run measured in interleaved rounds, each
// round on the next slice of the work and in a rotating order, so that whatever else runs on the
// machine weighs on each of them alike; with the CPU seconds every process group spent in each
// contestant's steps (read before and after each step, e.g. from /proc by process-cpu.ts).
import { log } from './bench-service.js';

/** One round's steps: each contestant's name and a run over the round's slice answering its seconds. */
export type RoundSteps<Name extends string> = Array<[Name, () => Promise<number>]>;

export interface RoundsResult<Name extends string, Group extends string> {
  /** Seconds of each contestant, one entry a round. */
  seconds: Record<Name, number[]>;
  /** CPU seconds each process group spent during each contestant's steps, over all rounds. */
  cpu: Record<Name, Record<Group, number>>;
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
  const cpu = Object.fromEntries(names.map((name) => [name, Object.fromEntries(groupNames.map((group) => [group, 0]))])) as Record<Name, Record<Group, number>>;
  const perRound = Math.ceil(items.length / rounds);
  for (let round = 0; round < rounds; round += 1) {
    const slice = items.slice(round * perRound, (round + 1) * perRound);
    if (slice.length === 0) break;
    const roundSteps = steps(slice);
    for (let step = 0; step < roundSteps.length; step += 1) {
      const [name, run] = roundSteps[(round + step) % roundSteps.length];
      const before = groupNames.map((group) => groups[group]());
      seconds[name].push(await run());
      groupNames.forEach((group, index) => (cpu[name][group] += groups[group]() - before[index]));
    }
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    log(`round ${round + 1}/${rounds}: ${names.map((name) => `${name} ${sum(seconds[name]).toFixed(1)} s`).join(', ')} so far`);
  }
  return { seconds, cpu };
}
