/**
 * Reads until `done` says the value will do, every 250 ms, and fails after
 * `timeoutMs` with what it waited for and the last value read: for tests
 * of a whole portal, where the catalog and the probes take their time.
 * @internal
 */
export async function waitFor<T>(
  what: string,
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out waiting for ${what}: ${JSON.stringify(value)}`,
      );
    }
    await new Promise(resolve => setTimeout(resolve, 250));
    value = await read();
  }
  return value;
}
