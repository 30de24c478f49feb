/** A search expression that cannot be parsed or breaks a rule; `offset` counts characters. */
export class InvalidQueryError extends Error {
  readonly offset: number;
  readonly detail: string;

  constructor(offset: number, detail: string) {
    super(`offset ${offset}: ${detail}`);
    this.name = "InvalidQueryError";
    this.offset = offset;
    this.detail = detail;
  }
}
