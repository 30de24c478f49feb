import assert from "node:assert/strict";
import { type CachedPage, PageCache } from "../../src/customers/page_cache.ts";

const page = (chars: number, link?: string): CachedPage => ({ body: "x".repeat(chars), link });

/** A request that misses and builds its page: get, then set. */
function answer(cache: PageCache, query: string, changes: number, built: CachedPage) {
  const kept = cache.get(query, changes);
  if (kept === undefined) cache.set(query, changes, built);
  return kept;
}

Deno.test("a page is kept from its second asking, so one-off searches keep nothing", () => {
  const cache = new PageCache(1000);
  const built = page(10);
  assert.equal(answer(cache, "?query=a", 7, built), undefined);
  assert.equal(cache.size, 0, "asked once: not kept");
  assert.equal(answer(cache, "?query=a", 7, built), undefined);
  assert.equal(cache.size, 1, "asked again: kept");
  assert.equal(answer(cache, "?query=a", 7, page(10)), built, "the third asking is answered");
});

Deno.test("a kept page is answered while the change count stays, and forgotten once it moves", () => {
  const cache = new PageCache(1000);
  const kept = page(10, '</api/customers?limit=2&cursor=x>; rel="next"');
  answer(cache, "?limit=2", 7, kept);
  answer(cache, "?limit=2", 7, kept);
  assert.equal(cache.get("?limit=2", 7), kept);
  assert.equal(cache.get("?limit=3", 7), undefined, "another query string is another page");
  assert.equal(cache.get("?limit=2", 8), undefined, "a change makes every kept page old");
  assert.equal(cache.size, 0);
  assert.equal(cache.get("?limit=2", 7), undefined, "an older count does not bring it back");
});

Deno.test("a page built at an older change count is not kept", () => {
  const cache = new PageCache(1000);
  cache.get("", 2);
  cache.get("", 3);
  cache.get("", 3);
  cache.set("", 2, page(10));
  assert.equal(cache.get("", 3), undefined);
});

Deno.test("the pages kept stay within the size budget, the oldest going first", () => {
  const cache = new PageCache(1000);
  const keep = (query: string, built: CachedPage) => {
    cache.get(query, 1);
    cache.get(query, 1);
    cache.set(query, 1, built);
  };
  for (let i = 0; i < 5; i++) keep(`?q=${i}`, page(200));
  assert.equal(cache.size, 5);
  keep("?q=5", page(200));
  assert.equal(cache.size, 5, "one page made room");
  assert.equal(cache.get("?q=0", 1), undefined, "the oldest went");
  assert.ok(cache.get("?q=5", 1) !== undefined);
  keep("?q=big", page(251));
  assert.equal(
    cache.get("?q=big", 1),
    undefined,
    "a page over a quarter of the budget is not kept",
  );
  cache.set("?q=5", 1, page(100));
  assert.equal(cache.size, 5, "setting a query again replaces its page");
});
