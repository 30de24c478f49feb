import { pacedTurn } from "../lib/paced_turn.ts";
import type { CustomerProjection } from "../read_model/projection.ts";
import type { SearchPage, Slicing } from "../search/search_page.ts";
import { search } from "../search/search_run.ts";
import type { ListRequest } from "./list_query.ts";

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

/** The list and its searches: a search waits for the search indexes, built once in slices. */
export class CustomerLists {
  readonly #projection: CustomerProjection;
  readonly #appliedSeq: () => number;
  readonly #slicing: Slicing;
  #indexed: Promise<number> | undefined;

  constructor(projection: CustomerProjection, appliedSeq: () => number, slicing = SLICING) {
    this.#projection = projection;
    this.#appliedSeq = appliedSeq;
    this.#slicing = slicing;
  }

  /** Builds the search indexes, once, after the replay; resolves with the ms it took. */
  index(): Promise<number> {
    return this.#indexed ??= this.#build();
  }

  /** The page a list request asks for, as the read model stands when it starts. */
  async page(request: ListRequest): Promise<ListAnswer> {
    if (request.searches) await this.index();
    const seq = this.#appliedSeq();
    return { page: await search(this.#projection, request, this.#slicing), seq };
  }

  async #build(): Promise<number> {
    const { now, sliceMs } = this.#slicing;
    const projection = this.#projection;
    const started = now();
    while (!projection.search.buildSlice(projection.ordinalLimit, now, now() + sliceMs)) {
      await this.#slicing.nextTurn();
    }
    return Math.round(now() - started);
  }
}
