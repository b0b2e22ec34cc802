/** An entry of a {@linkcode LinkedList}: what its owner keeps to remove it. */
export interface Link<T> {
  readonly value: T;
  previous?: Link<T>;
  next?: Link<T>;
}

/**
 * Values in the order they were added, each removed through the link its `push` returned. For
 * what comes and goes with every request (the calls in flight, the idle connections): a `Set`
 * that grows and shrinks as often rehashes, and hashes each new object, which cost a busy
 * service about a twentieth of its time per set.
 */
export class LinkedList<T> {
  #first?: Link<T>;
  #last?: Link<T>;
  #size = 0;

  /** How many values it holds. */
  get size(): number {
    return this.#size;
  }

  /** Adds `value` last; the link removes it. */
  push(value: T): Link<T> {
    const link: Link<T> = { value, previous: this.#last };
    if (this.#last) this.#last.next = link;
    else this.#first = link;
    this.#last = link;
    this.#size++;
    return link;
  }

  /** Removes the value of `link`; whether it was there (a link removed already is not). */
  remove(link: Link<T>): boolean {
    const { previous, next } = link;
    if (previous) previous.next = next;
    else if (this.#first === link) this.#first = next;
    else return false;
    if (next) next.previous = previous;
    else this.#last = previous;
    link.previous = link.next = undefined;
    this.#size--;
    return true;
  }

  /**
   * The values, first to last, one at a time: the loop that goes through them may remove the
   * value it is at (and stop early, at no cost for those after).
   */
  *[Symbol.iterator](): Iterator<T> {
    for (let link = this.#first; link;) {
      const { next } = link;
      yield link.value;
      link = next;
    }
  }

  /** The values, first to last, as they are now: removing any while going through them is safe. */
  values(): T[] {
    const values: T[] = [];
    for (let link = this.#first; link; link = link.next) values.push(link.value);
    return values;
  }
}
