/**
 * A request's loads of linked records that bring more of the same page (an event's venues and organizers, which
 * have images of their own). A DataLoader that waits for them (`afterSettled` as its batch schedule) reads what
 * the whole page asks of it in one statement: the images of a page's events, venues and organizers.
 */
export class RelationLoads {
  private pending = 0;
  private waiting: Array<() => void> = [];

  /** `load`, counted as pending until it settles. */
  track<T>(load: Promise<T>): Promise<T> {
    this.pending += 1;
    const settle = () => {
      this.pending -= 1;
      if (this.pending === 0) for (const wake of this.waiting.splice(0)) wake();
    };
    load.then(settle, settle);
    return load;
  }

  /**
   * Calls `dispatch` once no load is pending. Checked once the promise jobs queued so far have run (when DataLoader
   * would dispatch), and again after the pending loads settle: by then the fields resolved with what they loaded
   * have asked for their own records. Never later than that: a request on SQLite runs in one turn of the event loop
   * (src/limits/admission.ts).
   */
  afterSettled(dispatch: () => void): void {
    const check = () => {
      if (this.pending === 0) dispatch();
      else this.waiting.push(() => afterPromiseJobs(check));
    };
    afterPromiseJobs(check);
  }
}

/** Runs `callback` after the promise jobs queued so far and those they queue in turn, as DataLoader schedules a batch. */
function afterPromiseJobs(callback: () => void): void {
  Promise.resolve().then(() => process.nextTick(callback));
}
