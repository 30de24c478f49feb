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

/** Query strings counted at once, to tell which are asked again; then the count starts over. */
const ASKED_MAX = 4096;

/**
 * List pages answered since the read model last changed, by query string, each kept from its
 * second asking (a one-off search's page dies young, not copied by every scavenge). Any change
 * empties it; when full, the oldest page goes first.
 */
export class PageCache {
  #pages = new Map<string, CachedPage>();
  #asked = new Map<string, number>();
  #changes = -1;
  #chars = 0;

  constructor(readonly maxChars = PAGE_CACHE_CHARS) {}

  /** The page answered for `query` at this change count, if kept. */
  get(query: string, changes: number): CachedPage | undefined {
    if (changes !== this.#changes) {
      this.#pages.clear();
      this.#asked.clear();
      this.#chars = 0;
      this.#changes = changes;
    }
    const page = this.#pages.get(query);
    if (page !== undefined) return page;
    if (this.#asked.size >= ASKED_MAX) this.#asked.clear();
    this.#asked.set(query, (this.#asked.get(query) ?? 0) + 1);
    return undefined;
  }

  /** Keeps the page built for `query` at this change count, if asked for before at it. */
  set(query: string, changes: number, page: CachedPage): void {
    if (changes !== this.#changes || page.body.length > this.maxChars / 4) return;
    if ((this.#asked.get(query) ?? 0) < 2) return;
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
