/**
 * A cancellation that builds its `AbortSignal` only when something asks for one. Most exchanges
 * end without being cancelled, and on Node an AbortController costs more than the rest of a small
 * exchange's bookkeeping.
 */
export class Cancellation {
  #cancelled = false;
  #controller: AbortController | undefined;
  #listeners: (() => void)[] | undefined;

  /** Cancels (once): listeners run, and the signal, if built, aborts. */
  readonly cancel = (): void => {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    if (listeners) for (const listener of listeners) listener();
    this.#controller?.abort();
  };

  /** True once cancelled. */
  readonly cancelled = (): boolean => this.#cancelled;

  /** The signal, built on first read (already aborted when the cancel came first). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#cancelled) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** Runs `listener` once on cancel (at once if already cancelled); returns the unsubscribe. */
  onCancel(listener: () => void): () => void {
    if (this.#cancelled) {
      listener();
      return () => {};
    }
    this.#listeners ??= [];
    this.#listeners.push(listener);
    return () => {
      const index = this.#listeners?.indexOf(listener) ?? -1;
      if (index >= 0) this.#listeners?.splice(index, 1);
    };
  }
}
