import assert from "node:assert/strict";
import { parseFeedQuery, parseLastEventId } from "../../src/feed/feed_query.ts";
import { BadRequestError } from "../../src/http/errors.ts";

const ID = "01JDQ8Z5K3M4N5P6Q7R8S9T0VW";

Deno.test("an empty feed query reads from the oldest retained event, 100 at a time, without waiting", () => {
  const query = parseFeedQuery("");
  assert.deepEqual([query.after, query.limit, [...query.types], query.wait], [
    undefined,
    100,
    [],
    0,
  ]);
});

Deno.test("type repeats, the other feed parameters are read once each", () => {
  const query = parseFeedQuery(
    `?after=7&limit=1000&type=customer.created&type=customer.deleted&customer_id=${ID}&wait=60`,
  );
  assert.deepEqual(query, {
    after: 7,
    limit: 1000,
    types: new Set(["customer.created", "customer.deleted"]),
    customerId: ID,
    wait: 60,
  });
});

Deno.test("bad, unknown or repeated feed parameters are a BadRequestError quoting the value", () => {
  for (
    const [search, message] of [
      ["limit=0", /limit "0"/],
      ["limit=1001", /limit "1001"/],
      ["limit=", /limit ""/],
      ["after=-1", /after "-1"/],
      ["after=1.5", /after "1.5"/],
      ["wait=61", /wait "61"/],
      ["type=customer.moved", /type "customer.moved"/],
      ["customer_id=x", /customer_id "x"/],
      ["cursor=abc", /Unknown query parameter "cursor"/],
      ["wait=1&wait=2", /"wait" is given twice/],
      ["access_token=st1.x.y", /only by the event stream/],
    ] as const
  ) {
    assert.throws(() => parseFeedQuery(search), (error: Error) => {
      assert.ok(error instanceof BadRequestError, search);
      assert.match(error.message, message);
      return true;
    });
  }
});

Deno.test("Last-Event-ID is a seq; absent or empty means none, anything else is a 400", () => {
  assert.equal(parseLastEventId(null), undefined);
  assert.equal(parseLastEventId(""), undefined);
  assert.equal(parseLastEventId("42"), 42);
  assert.throws(() => parseLastEventId("abc"), BadRequestError);
});

Deno.test("access_token is a parameter of the event stream only", () => {
  assert.equal(parseFeedQuery("access_token=st1.x.y", true).limit, 100);
});
