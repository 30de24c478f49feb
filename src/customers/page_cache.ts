/** A list page as answered: its body's bytes and its `Link` header, if there is a next page. */
export interface CachedPage {
  body: Uint8Array<ArrayBuffer>;
  link: string | undefined;
}

/** The bytes cached pages may hold together; a bigger page is answered but not kept. */
export const PAGE_CACHE_BYTES = 8 * 1024 * 1024;

/**
 * List pages answered since the read model last changed, by their query string as sent: a page
 * is built once per change instead of once per request. Any change empties the cache (the
 * caller passes the model's change count), so a page is never older than the last write; when
 * full, the oldest page goes first.
 */
export class PageCache {
  #pages = new Map<string, CachedPage>();
  #changes = -1;
  #bytes = 0;

  constructor(readonly maxBytes = PAGE_CACHE_BYTES) {}

  /** The page answered for `query` at this change count, if kept. */
  get(query: string, changes: number): CachedPage | undefined {
    if (changes !== this.#changes) {
      this.#pages.clear();
      this.#bytes = 0;
      this.#changes = changes;
      return undefined;
    }
    return this.#pages.get(query);
  }

  /** Keeps the page built for `query` at this change count. */
  set(query: string, changes: number, page: CachedPage): void {
    if (changes !== this.#changes || page.body.length > this.maxBytes / 4) return;
    this.#bytes -= this.#pages.get(query)?.body.length ?? 0;
    this.#pages.delete(query);
    for (const [oldest, kept] of this.#pages) {
      if (this.#bytes + page.body.length <= this.maxBytes) break;
      this.#pages.delete(oldest);
      this.#bytes -= kept.body.length;
    }
    this.#pages.set(query, page);
    this.#bytes += page.body.length;
  }

  /** The number of pages kept. */
  get size(): number {
    return this.#pages.size;
  }
}
