import type { ExpectedVersions } from "../domain/commands.ts";

/** The strong ETag of a customer version. */
export function etag(version: number): string {
  return `"${version}"`;
}

/** Parses If-Match into the versions it accepts (strong comparison: weak or foreign tags fail). */
export function parseIfMatch(header: string | null): ExpectedVersions | undefined {
  if (header === null) return undefined;
  if (header.trim() === "*") return "*";
  const versions: number[] = [];
  for (const tag of header.split(",")) {
    const match = /^"([1-9][0-9]{0,15})"$/.exec(tag.trim());
    if (match !== null) versions.push(Number(match[1]));
  }
  return versions;
}

/** True when If-None-Match names the current version (weak comparison, RFC 9110 §13.1.2). */
export function ifNoneMatchHits(header: string | null, version: number): boolean {
  if (header === null) return false;
  if (header.trim() === "*") return true;
  const current = etag(version);
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === current);
}
