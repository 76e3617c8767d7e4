/**
 * Polls a condition a background worker reaches on its own (a delivery sent, a slot freed). The
 * deadline only ends a test that would otherwise hang; it is no bound on how fast the worker is,
 * so keep it generous: this machine is shared and slow under load.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
