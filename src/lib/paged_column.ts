const PAGE_BITS = 16;
const PAGE = 1 << PAGE_BITS;

/**
 * A number per index in pages of 65,536, so growing never copies what is there (a flat typed
 * array grown at a million entries copies megabytes while every request waits).
 */
export class PagedColumn {
  #pages: Float64Array[] = [];

  get(index: number): number {
    const page = this.#pages[index >>> PAGE_BITS];
    return page === undefined ? 0 : page[index & (PAGE - 1)];
  }

  set(index: number, value: number): void {
    const page = index >>> PAGE_BITS;
    while (this.#pages.length <= page) this.#pages.push(new Float64Array(PAGE));
    this.#pages[page][index & (PAGE - 1)] = value;
  }
}
