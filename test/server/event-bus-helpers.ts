import type { ServerEventBus, SharedServerEvent } from "../../src/server/events.js";

/** An in-process pub/sub that passes events as JSON text, like a network channel. */
export function jsonBus() {
  const listeners = new Set<(event: SharedServerEvent) => void>();
  const published: string[] = [];
  const bus: ServerEventBus & { raw(text: string): void } = {
    publish: (event) => {
      const text = JSON.stringify(event);
      published.push(text);
      for (const listener of listeners) listener(JSON.parse(text));
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    raw: (text) => {
      for (const listener of listeners) listener(JSON.parse(text));
    },
  };
  return { bus, published, listening: () => listeners.size };
}
