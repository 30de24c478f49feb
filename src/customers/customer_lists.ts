import { pacedTurn } from "../lib/paced_turn.ts";
import type { CustomerProjection } from "../read_model/projection.ts";
import type { SearchPage, Slicing } from "../search/search_page.ts";
import { search } from "../search/search_run.ts";
import type { ListRequest } from "./list_query.ts";
import { failureKind, type StartSpan } from "../lib/trace_span.ts";
import { sortName } from "../search/list_sort.ts";

/** Long work (a search's walk, the index build) lets other requests in at least this often. */
export const SLICE_MS = 0.5;
/** While requests keep the thread busy, they get this many slices' time for each slice of it. */
const OTHERS_PER_SLICE = 3;

const SLICING: Slicing = {
  sliceMs: SLICE_MS,
  now: () => performance.now(),
  nextTurn: pacedTurn(SLICE_MS, OTHERS_PER_SLICE),
};

/** A page of the list, and the seq of the state it answers (its Log-Seq). */
export interface ListAnswer {
  page: SearchPage;
  seq: number;
}

/**
 * The list and its searches: a search waits for the search indexes, built once in slices. With
 * `span` (tracing on), each page's search is a span `search.page`, and a wait for the indexes
 * `search.index_wait`.
 */
export class CustomerLists {
  readonly #projection: CustomerProjection;
  readonly #appliedSeq: () => number;
  readonly #slicing: Slicing;
  readonly #span: StartSpan | undefined;
  #indexed: Promise<number> | undefined;
  #built = false;

  constructor(
    projection: CustomerProjection,
    appliedSeq: () => number,
    slicing = SLICING,
    span?: StartSpan,
  ) {
    this.#projection = projection;
    this.#appliedSeq = appliedSeq;
    this.#slicing = slicing;
    this.#span = span;
  }

  /** Builds the search indexes, once, after the replay; resolves with the ms it took. */
  index(): Promise<number> {
    return this.#indexed ??= this.#build();
  }

  /** The page a list request asks for, as the read model stands when it starts. */
  async page(request: ListRequest): Promise<ListAnswer> {
    if (request.searches) {
      const wait = this.#built ? undefined : this.#span?.("search.index_wait");
      await this.index();
      wait?.end();
    }
    const seq = this.#appliedSeq();
    if (this.#span === undefined) {
      return { page: await search(this.#projection, request, this.#slicing), seq };
    }
    const span = this.#span("search.page", {
      "search.sort": sortName(request.sort),
      "search.filtered": request.query !== undefined,
      "search.limit": request.limit,
    });
    try {
      const page = await search(this.#projection, request, this.#slicing, span);
      span.set("search.results", page.texts.length);
      return { page, seq };
    } catch (error) {
      span.fail(failureKind(error));
      throw error;
    } finally {
      span.end();
    }
  }

  async #build(): Promise<number> {
    const { now, sliceMs } = this.#slicing;
    const projection = this.#projection;
    const started = now();
    while (!projection.search.buildSlice(projection.ordinalLimit, now, now() + sliceMs)) {
      await this.#slicing.nextTurn();
    }
    this.#built = true;
    return Math.round(now() - started);
  }
}
