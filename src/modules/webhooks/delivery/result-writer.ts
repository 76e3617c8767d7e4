import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../../../clock.js';
import type { Db } from '../../../db/client.js';
import { type AttemptResult, recordAttempts } from './queue.js';
import { afterAttempt } from './schedule.js';
import { ATTEMPT_TEXT_LIMIT, asciiExcerpt } from './storable-text.js';

/** An attempt result waiting to be written. */
export interface PendingResult {
  result: AttemptResult;
  /** The attempt's number in its cycle (1-5): what a failed attempt makes of the delivery. */
  attempt: number;
  /** Writes of this result alone that failed. */
  writeFailures?: number;
}

/** Wait after a failed write before trying again. */
export const ERROR_BACKOFF_MS = 1_000;
/** Failed writes of one result alone before it is recorded as a failed attempt instead. */
const MAX_WRITE_FAILURES = 3;

/** SQLSTATE class 22 (data exception): the row's content was refused, so writing it again cannot help. */
function refusedContent(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22')) return code;
  }
  return undefined;
}

/**
 * Writes attempt results in batches in the background: while a write runs, results pile up for
 * the next. A batch that fails is written row by row, so one result the database refuses never
 * holds back another's; a row refused for its content (or failing alone MAX_WRITE_FAILURES
 * times) is recorded as a failed attempt with an ASCII excerpt, and dropped only if even that
 * fails (its lease runs out and the delivery is sent again). Writes that fail while the database
 * does not answer are retried without counting; if the process dies first, the leases run out (at least once, never lost).
 */
export class ResultWriter {
  private pending: PendingResult[] = [];
  /** Results in the write under way. */
  private writing = 0;
  private flushing: Promise<void> | undefined;
  /** Stopping: a failed write is given up rather than retried. */
  stopping = false;

  constructor(private readonly deps: { db: Db; clock: Clock; logger: Logger }) {}

  add(pending: PendingResult): void {
    this.pending.push(pending);
    void this.flush();
  }

  /** Attempt results not yet written: waiting, or in the write under way. */
  get unrecorded(): number {
    return this.pending.length + this.writing;
  }

  /** Resolves when every result is written (or given up). */
  async idle(): Promise<void> {
    while (this.flushing || this.pending.length > 0) await this.flush();
  }

  flush(): Promise<void> {
    this.flushing ??= this.writeAll().finally(() => {
      this.writing = 0;
      this.flushing = undefined;
      // A result added after the last batch was taken, before this ran, found the write still
      // under way: write it now rather than with the next one (or after its lease ran out).
      if (this.pending.length > 0 && !this.stopping) void this.flush();
    });
    return this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.writing = batch.length;
      try {
        await recordAttempts(
          this.deps.db,
          batch.map((p) => p.result),
          this.deps.clock.now(),
        );
      } catch (err) {
        if (this.stopping) {
          this.deps.logger.warn({ err, count: batch.length }, 'webhook attempts not recorded at shutdown');
          return;
        }
        const retry = await this.writeOneByOne(batch, err);
        if (retry.length > 0) {
          this.deps.logger.warn({ err, count: retry.length }, 'recording webhook attempts failed; retrying');
          this.pending.unshift(...retry);
          await new Promise((r) => setTimeout(r, ERROR_BACKOFF_MS));
        }
      }
    }
  }

  /**
   * After a batch failed: each result alone. Returns those to try again later: from the first
   * that failed for another reason than its content on (the database is likely unreachable).
   */
  private async writeOneByOne(batch: PendingResult[], batchError: unknown): Promise<PendingResult[]> {
    for (const [i, pending] of batch.entries()) {
      let err = batchError;
      // A batch of one has just been tried alone.
      if (batch.length > 1) {
        try {
          await recordAttempts(this.deps.db, [pending.result], this.deps.clock.now());
          continue;
        } catch (rowError) {
          err = rowError;
        }
      }
      const code = refusedContent(err);
      if (code === undefined) {
        // Only a failure while the database answers counts against the row itself.
        if (!(await this.databaseAnswers())) return batch.slice(i);
        pending.writeFailures = (pending.writeFailures ?? 0) + 1;
        if (pending.writeFailures < MAX_WRITE_FAILURES) return batch.slice(i);
      }
      await this.recordUnwritable(pending, code ?? 'write failed', err);
    }
    return [];
  }

  private async databaseAnswers(): Promise<boolean> {
    try {
      await this.deps.db.execute(sql`select 1`);
      return true;
    } catch {
      return false;
    }
  }

  /** Records a result that could not be written as a failed attempt with a safe excerpt. */
  private async recordUnwritable(pending: PendingResult, reason: string, err: unknown): Promise<void> {
    const { result } = pending;
    const next = afterAttempt(pending.attempt, false, null, result.attemptedAt);
    const substitute: AttemptResult = {
      ...result,
      ...next,
      responseBody:
        result.responseBody === null ? null : asciiExcerpt(result.responseBody, ATTEMPT_TEXT_LIMIT),
      error: `the attempt's result could not be recorded (${reason}); counted as a failed attempt`,
    };
    this.deps.logger.error(
      { err, tenantId: result.tenantId, eventId: result.eventId },
      'webhook attempt result refused by the database; recorded as a failed attempt',
    );
    try {
      await recordAttempts(this.deps.db, [substitute], this.deps.clock.now());
    } catch (again) {
      this.deps.logger.error(
        { err: again, tenantId: result.tenantId, eventId: result.eventId },
        'webhook attempt result not recorded; the delivery is sent again when its lease ends',
      );
    }
  }
}
