/** Sets the headers every answer carries (contract §4): its request id, and no MIME sniffing. */
export function setMandatoryHeaders(headers: Headers, requestId: string): void {
  headers.set("x-request-id", requestId);
  headers.set("x-content-type-options", "nosniff");
}

/** The same headers as a record, for an answer built with all its headers at once. */
export function mandatoryHeaders(requestId: string): Record<string, string> {
  return { "x-request-id": requestId, "x-content-type-options": "nosniff" };
}
