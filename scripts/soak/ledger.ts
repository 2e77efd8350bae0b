import { readStates, stateKey, type Kind, type State } from './records.js';
import type { Api } from './api.js';

/**
 * What clients were told about each record: the state of its last acknowledged write, and the states of writes whose
 * outcome is unknown (in flight when the server died, or answered with an error). Afterwards the record must be in
 * one of those states: an acknowledged write may only be replaced by a later write, never lost or mixed.
 */
interface Entry {
  kind: Kind;
  id: number;
  acknowledged: State;
  unknown: State[];
}

export interface Mismatch {
  kind: Kind;
  id: number;
  found: State;
  allowed: State[];
}

const keyOf = (kind: Kind, id: number) => `${kind}:${id}`;

export class Ledger {
  #entries = new Map<string, Entry>();
  #inFlight = 0;
  #acknowledged = 0;

  /** Writes acknowledged so far. */
  get acknowledged(): number {
    return this.#acknowledged;
  }

  /** Writes sent and not answered yet. */
  get inFlight(): number {
    return this.#inFlight;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Runs a write to an existing record that would leave it in `next`; `write` answers whether it was acknowledged.
   * Until then, and for ever when it fails or never answers, `next` counts as a possible outcome.
   */
  async write(kind: Kind, id: number, next: State, write: () => Promise<boolean>): Promise<boolean> {
    const entry = this.#entries.get(keyOf(kind, id));
    if (!entry) throw new Error(`${kind} ${id} is not in the ledger`);
    entry.unknown.push(next);
    const acknowledged = await this.#track(write);
    if (acknowledged) {
      entry.acknowledged = next;
      entry.unknown = entry.unknown.filter((state) => state !== next);
    }
    return acknowledged;
  }

  /** Runs a create; the record enters the ledger once it is acknowledged (before that its ID is unknown). */
  async create(kind: Kind, state: State, create: () => Promise<number | null>): Promise<number | null> {
    const id = await this.#track(async () => create());
    if (id !== null) this.#entries.set(keyOf(kind, id), { kind, id, acknowledged: state, unknown: [] });
    return id;
  }

  /** The last acknowledged state of a record. */
  stateOf(kind: Kind, id: number): State {
    return this.#entries.get(keyOf(kind, id))?.acknowledged ?? null;
  }

  /** Reads every record back through `api` and answers those in a state no client was told about. */
  async verify(api: Api): Promise<{ checked: number; mismatches: Mismatch[] }> {
    const mismatches: Mismatch[] = [];
    const byKind = new Map<Kind, Entry[]>();
    for (const entry of this.#entries.values()) byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry]);
    for (const [kind, entries] of byKind) {
      const found = await readStates(
        api,
        kind,
        entries.map((entry) => entry.id),
      );
      for (const entry of entries) {
        const allowed = [entry.acknowledged, ...entry.unknown];
        const state = found.get(entry.id) ?? null;
        if (!allowed.some((candidate) => stateKey(candidate) === stateKey(state)))
          mismatches.push({ kind, id: entry.id, found: state, allowed });
      }
    }
    return { checked: this.#entries.size, mismatches };
  }

  async #track<T>(action: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      const result = await action();
      if (result !== false && result !== null) this.#acknowledged++;
      return result;
    } finally {
      this.#inFlight--;
    }
  }
}
