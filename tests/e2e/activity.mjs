// Deterministic daily-activity test data for the e2e tests that chart it (engagement, tooltip):
// the redis commands that write one bitmap per day and a BITFIELD u4 level key, drawn from a
// seeded PRNG (harness.mjs rng) so every run writes the same bits.

/**
 * `SET stats:active:<day> <bitmap>` per day of `days` (YYYYMMDD): a user `u < loyal` is active
 * with probability `loyalP`, any user with `base` (+ `weekday` on 5 days of each 7).
 */
export function dailyActivityCommands(days, rand, { users, loyal, loyalP, base, weekday }) {
  return days.map((d, i) => {
    const bytes = Buffer.alloc(users / 8);
    for (let u = 0; u < users; u++) {
      const isLoyal = u < loyal && rand() < loyalP;
      if (isLoyal || rand() < base + weekday * (i % 7 < 5 ? 1 : 0)) bytes[u >> 3] |= 0x80 >> (u & 7);
    }
    return ['SET', `stats:active:${d}`, bytes];
  });
}

/** `BITFIELD key SET u4 #u <level> …` for every `step`-th user: levels 0..15, mostly low. */
export function levelCommand(key, rand, { users, step }) {
  const level = ['BITFIELD', key];
  for (let u = 0; u < users; u += step) level.push('SET', 'u4', `#${u}`, String(Math.min(15, Math.floor(-Math.log(rand() + 1e-9) * 3))));
  return level;
}
