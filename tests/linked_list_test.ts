import assert from "node:assert/strict";
import { LinkedList } from "../src/linked_list.ts";

Deno.test("a linked list keeps the order values came in, whatever is removed from where", () => {
  const list = new LinkedList<string>();
  const links = new Map(["a", "b", "c", "d", "e"].map((value) => [value, list.push(value)]));
  assert.equal(list.remove(links.get("c")!), true, "from the middle");
  assert.equal(list.remove(links.get("a")!), true, "the first");
  assert.equal(list.remove(links.get("e")!), true, "the last");
  assert.deepEqual(list.values(), ["b", "d"]);
  assert.equal(list.size, 2);
  assert.equal(list.remove(links.get("c")!), false, "a link removed already");
  assert.equal(list.size, 2);
  links.set("f", list.push("f"));
  assert.deepEqual(list.values(), ["b", "d", "f"]);
  // What `values` gave stays as it was while its values are removed.
  for (const value of list.values()) list.remove(links.get(value)!);
  assert.deepEqual(list.values(), []);
  assert.equal(list.size, 0);
  list.push("g");
  assert.deepEqual(list.values(), ["g"], "an emptied list takes values again");
});

Deno.test("a linked list's values can be gone through one at a time, removing each", () => {
  const list = new LinkedList<number>();
  const links = new Map([1, 2, 3, 4].map((value) => [value, list.push(value)]));
  const seen: number[] = [];
  for (const value of list) {
    seen.push(value);
    list.remove(links.get(value)!);
    if (value === 3) break;
  }
  assert.deepEqual(seen, [1, 2, 3]);
  assert.deepEqual(list.values(), [4], "what the loop did not reach stays");
  assert.deepEqual([...list], [4]);
});
