/**
 * Calls a double holds on arrival, before they take effect (a request on its way while its sender stalls), by
 * method: `hold` arms the next call of a method, `waitIfHeld` is what the double's request handler awaits.
 */
export function callHolds() {
  const holds = new Map<string, Array<{ arrived: () => void; released: Promise<void> }>>();
  return {
    /** The next call of `method` is held: `arrived` resolves when it is, `release()` lets it take effect and be answered. */
    hold(method: string): { arrived: Promise<void>; release: () => void } {
      let arrived!: () => void;
      let release!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      holds.set(method, [...(holds.get(method) ?? []), { arrived, released }]);
      return { arrived: arrival, release };
    },
    async waitIfHeld(method: string): Promise<void> {
      const held = holds.get(method)?.shift();
      if (!held) return;
      held.arrived();
      await held.released;
    },
  };
}
