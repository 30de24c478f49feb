/**
 * A list page as answered: its body and `Link` header, if any. The body stays a string: Deno
 * copies a Uint8Array body on every Response, which costs more than encoding the string.
 */
export interface CachedPage {
  body: string;
  link: string | undefined;
}

/** The characters cached pages may hold together; a bigger page is answered but not kept. */
export const PAGE_CACHE_CHARS = 8 * 1024 * 1024;

/**
 * List pages answered since the read model last changed, by query string: a page is built once
 * per change, not per request. Any change empties it; when full, the oldest page goes first.
 */
export class PageCache {
  #pages = new Map<string, CachedPage>();
  #changes = -1;
  #chars = 0;

  constructor(readonly maxChars = PAGE_CACHE_CHARS) {}

  /** The page answered for `query` at this change count, if kept. */
  get(query: string, changes: number): CachedPage | undefined {
    if (changes !== this.#changes) {
      this.#pages.clear();
      this.#chars = 0;
      this.#changes = changes;
      return undefined;
    }
    return this.#pages.get(query);
  }

  /** Keeps the page built for `query` at this change count. */
  set(query: string, changes: number, page: CachedPage): void {
    if (changes !== this.#changes || page.body.length > this.maxChars / 4) return;
    this.#chars -= this.#pages.get(query)?.body.length ?? 0;
    this.#pages.delete(query);
    for (const [oldest, kept] of this.#pages) {
      if (this.#chars + page.body.length <= this.maxChars) break;
      this.#pages.delete(oldest);
      this.#chars -= kept.body.length;
    }
    this.#pages.set(query, page);
    this.#chars += page.body.length;
  }

  /** The number of pages kept. */
  get size(): number {
    return this.#pages.size;
  }
}
