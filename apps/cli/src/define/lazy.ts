type Action = (...args: never[]) => Promise<void>;

/**
 * The action `name` of a command module, the module loaded on first use: `lagrange --help` and
 * every other command start without importing it.
 */
export function lazy<K extends string, M extends Record<K, Action>>(
  load: () => Promise<M>,
  name: K,
): (...args: Parameters<M[K]>) => Promise<void> {
  return async (...args) => (await load())[name](...args);
}
