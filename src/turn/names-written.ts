import type { TurnPerson } from '../store/turn-record.js';

/** People remembered at most; the oldest entry goes first. */
const LIMIT = 10_000;
/**
 * A name is written again after this long even when unchanged here: another process may have stored a newer
 * naming in between (a rename and a rename back), and this heals it.
 */
const REFRESH_MS = 60 * 60 * 1000;

interface Written {
  name: string | undefined;
  username: string | undefined;
  atMs: number;
}

/**
 * The names this process last wrote to `people`, so that a turn's flush statement carries only senders whose
 * name changed (usually nobody): no database round trip and, most of the time, no extra step in the statement.
 */
export class NamesWritten {
  readonly #written = new Map<string, Written>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** The people whose sent name or username differs from what was written, or was written long ago. */
  changed(people: readonly TurnPerson[]): TurnPerson[] {
    const now = this.clock();
    return people.filter((person) => {
      const written = this.#written.get(keyOf(person));
      if (!written || now - written.atMs >= REFRESH_MS) return true;
      return (person.name !== undefined && person.name !== written.name) || (person.username !== undefined && person.username !== written.username);
    });
  }

  /** After the statement that carried them committed. */
  remember(people: readonly TurnPerson[]): void {
    const now = this.clock();
    for (const person of people) {
      const key = keyOf(person);
      const before = this.#written.get(key);
      this.#written.delete(key);
      if (this.#written.size >= LIMIT) this.#written.delete(this.#written.keys().next().value!);
      this.#written.set(key, { name: person.name ?? before?.name, username: person.username ?? before?.username, atMs: now });
    }
  }
}

function keyOf(person: TurnPerson): string {
  return `${person.channel}\u0000${person.userId}`;
}
