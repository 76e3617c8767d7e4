import { onTestFinished } from 'vitest';

/**
 * Waits until a condition that background work reaches on its own holds (a delivery sent, a slot
 * freed, a row written after the response), polling it. There is no wall-clock limit of its own:
 * how fast the work goes depends on the machine's load, not on the code under test. The hang
 * guard is the test's own timeout (vitest's testTimeout, or the one the test gives); when the
 * test ends (timed out) the polling stops and throws, saying what it was waiting for.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, what = 'the condition') {
  let ended = false;
  try {
    onTestFinished(() => {
      ended = true;
    });
  } catch {
    // Outside a test (a hook): the hook's timeout is the guard, and the run ends the process.
  }
  while (!(await condition())) {
    if (ended) throw new Error(`the test ended before ${what} held`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
