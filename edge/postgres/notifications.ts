import type { Sql } from "postgres";

/** The channel every question store on a database notifies; payloads say which space changed. */
export const CHANNEL = "outpost_questions";

/** A change notified on {@linkcode CHANNEL}: its space, and the ids, unless too many to send. */
export interface Notified {
  space: string;
  ids?: string[];
}

/** Told each change, or `null` after the LISTEN was re-established (anything may have changed). */
export type Subscriber = (change: Notified | null) => void;

/**
 * The one LISTEN on {@linkcode CHANNEL} of a client, for as long as the client lives, which every
 * watch of every store on it shares. The `postgres` client LISTENs again after a reconnection,
 * but with listener objects of its own: the handle its `listen` returned then no longer removes
 * anything, so a LISTEN per watch would leave each watch that ended after a reconnection
 * subscribed for good. One that never ends has nothing to remove.
 */
class Notifications {
  readonly #sql: Sql;
  readonly #subscribers = new Set<Subscriber>();
  #listening?: Promise<void>;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  /**
   * Adds `subscriber` and resolves, with the function that removes it, once the client LISTENs;
   * rejects, adding nothing, when the LISTEN fails (the next subscriber tries again).
   */
  async subscribe(subscriber: Subscriber): Promise<() => void> {
    this.#subscribers.add(subscriber);
    try {
      await (this.#listening ??= this.#listen());
    } catch (error) {
      this.#subscribers.delete(subscriber);
      throw error;
    }
    return () => void this.#subscribers.delete(subscriber);
  }

  async #listen(): Promise<void> {
    let listened = false;
    try {
      await this.#sql.listen(CHANNEL, (payload) => {
        const change = parseChange(payload);
        for (const subscriber of [...this.#subscribers]) subscriber(change);
      }, () => {
        // Called at the first LISTEN and again after each reconnection, when notifications sent
        // while no connection listened are lost.
        if (listened) { for (const subscriber of [...this.#subscribers]) subscriber(null); }
        listened = true;
      });
    } catch (error) {
      this.#listening = undefined;
      throw error;
    }
  }
}

/**
 * The change `payload` tells of; `null` (anything may have changed) for one that is not ours, sent
 * by someone else on the channel, which must not break the connection it arrived on.
 */
function parseChange(payload: string): Notified | null {
  try {
    const change = JSON.parse(payload);
    return typeof change?.space === "string" ? change : null;
  } catch {
    return null;
  }
}

const byClient = new WeakMap<Sql, Notifications>();

/** The notifications of `sql`'s {@linkcode CHANNEL}: one LISTEN for the client's lifetime. */
export function notifications(sql: Sql): Notifications {
  let shared = byClient.get(sql);
  if (!shared) byClient.set(sql, shared = new Notifications(sql));
  return shared;
}
