/**
 * The work a process has under way: inbound messages being handled and turns running. Counted for what must not
 * run in the middle of that work: the idle heap reclaim's full collection stops the process for tens of ms, which
 * at a trickle of messages lands on one of them (a step of the bench's capacity search failed at 8 msg/s on it).
 */
export class ProcessActivity {
  #begun = 0;
  #running = 0;

  /** Work begins; the returned function ends it (calling it again does nothing). */
  begin(): () => void {
    this.#begun += 1;
    this.#running += 1;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#running -= 1;
    };
  }

  /** `work` as one unit of work, however it ends. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    const end = this.begin();
    try {
      return await work();
    } finally {
      end();
    }
  }

  /** Units of work under way now. */
  get running(): number {
    return this.#running;
  }

  /** A probe that says, each time it is asked, whether work is under way or began since it was last asked. */
  busyProbe(): () => boolean {
    let seen = this.#begun;
    return () => {
      const begun = this.#begun;
      const busy = this.#running > 0 || begun !== seen;
      seen = begun;
      return busy;
    };
  }
}
