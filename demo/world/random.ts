/** A small seeded PRNG (mulberry32): the same seed builds the same world, on every machine, with no I/O. */
import { mulberry32 } from '../../platform/seeded-random.ts';

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
  /** A shuffled copy (Fisher-Yates). */
  shuffle<T>(list: readonly T[]): T[];
}

export function seededRandom(seed: number): Random {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick(list) {
      if (list.length === 0) throw new Error('pick from an empty list');
      return list[int(list.length)] as (typeof list)[number];
    },
    shuffle(list) {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i -= 1) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j] as (typeof out)[number], out[i] as (typeof out)[number]];
      }
      return out;
    },
  };
}
