/** The media type of every JSON body the service sends. */
export const JSON_TYPE = "application/json; charset=utf-8";

/** The media type of an error body (RFC 9457). */
export const PROBLEM_JSON = "application/problem+json";
