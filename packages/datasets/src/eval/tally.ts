/** Counters by key, each made on first use (per type, per label, per level). */
export class Tally<K, T> {
  readonly counts = new Map<K, T>();
  constructor(readonly make: () => T) {}

  of(key: K): T {
    let found = this.counts.get(key);
    if (found === undefined) {
      found = this.make();
      this.counts.set(key, found);
    }
    return found;
  }
}
