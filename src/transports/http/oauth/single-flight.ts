/**
 * One task at a time: whoever asks while it runs shares its promise (concurrent refusals share one
 * authorization; concurrent requests share one refresh).
 */
export class SingleFlight<T> {
  #running: Promise<T> | undefined;

  /** The task in flight, if any. */
  get running(): Promise<T> | undefined {
    return this.#running;
  }

  /** `task`'s promise, or the one already in flight. */
  run(task: () => Promise<T>): Promise<T> {
    this.#running ??= task().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }
}
