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
