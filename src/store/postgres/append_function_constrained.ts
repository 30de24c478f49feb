/**
 * The group commit's server-side function, third form: a group in which no customer is named by two
 * appends (as the service sends them: each append one event and its customer's expected version)
 * is written at once, and the unique constraints refuse what only they can see (a customer
 * expected new that exists, an email or an idempotency key taken): the write then rolls back to a
 * savepoint, and the group is checked append by append (`append_group_in_turn`,
 * customers_table.ts). Only an expected version other than "none" reads a row first. Same
 * arguments and result as the second form (append_function_checked.ts).
 */
export const APPEND_FUNCTION_CONSTRAINED = `
CREATE OR REPLACE FUNCTION append_group(
  items int, p_item int[], p_type text[], p_id text[], p_version int[], p_time text[],
  p_actor text[], p_request_id text[], p_key text[], p_hash text[], p_data text[],
  p_email text[], x_item int[], x_id text[], x_version int[], p_notice text DEFAULT NULL
) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  notice text;
  called timestamptz := clock_timestamp();
  head bigint;
  waited float8;
  n int := coalesce(array_length(p_item, 1), 0);
  aligned boolean;
  versions_before int[];
  clean boolean;
BEGIN
  -- The lock that orders commits: held until this call's transaction commits.
  SELECT seq INTO head FROM log_head FOR UPDATE;
  waited := extract(epoch FROM clock_timestamp() - called);
  -- The service's shape: each append one event and the expected version of its customer. Two
  -- appends of one customer then meet a probe, the primary key or UNIQUE (customer_id, version).
  aligned := n = items AND x_item = p_item AND x_id = p_id;
  -- Scalar subqueries, so that each lookup stays one probe of an index however the table grows.
  IF aligned THEN
    versions_before := x_version;
    clean := NOT EXISTS (SELECT FROM unnest(x_id, x_version) x (id, version) WHERE x.version > 0
      AND coalesce((SELECT c.version FROM customers c WHERE c.customer_id = x.id), 0) <> x.version);
  ELSE
    -- A customer named by two appends, or an expected version other than "none" or of a customer
    -- the group does not write, goes append by append.
    versions_before := '{}';
    clean := NOT EXISTS (SELECT FROM unnest(p_item || x_item, p_id || x_id) e (item, id)
        GROUP BY id HAVING min(item) <> max(item))
      AND NOT EXISTS (SELECT FROM unnest(x_id, x_version) x (id, version)
        LEFT JOIN (SELECT DISTINCT id FROM unnest(p_id) id) e ON e.id = x.id
        WHERE (x.version > 0 OR e.id IS NULL) AND coalesce((SELECT c.version FROM customers c
          WHERE c.customer_id = x.id), 0) <> x.version);
  END IF;
  IF clean THEN
    BEGIN
      WITH w AS (
        SELECT t.*, head + t.ord AS seq
        FROM unnest(p_type, p_id, p_version, p_time, p_actor, p_request_id, p_key, p_hash, p_data,
          p_email, versions_before) WITH ORDINALITY
          AS t(type, id, version, time, actor, request_id, key, hash, data, email, expected, ord)
      ),
      ev AS (INSERT INTO events
        (seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash,
          data)
        SELECT seq, type, id, version, time, actor, request_id, key, hash, data FROM w),
      -- The last event of each customer decides its version and email (none once deleted); one
      -- event per customer when aligned (the other branch then does not run).
      latest AS (SELECT id, version, email, expected FROM w WHERE aligned
        UNION ALL (SELECT DISTINCT ON (w.id) w.id, w.version, w.email, x.version
          FROM w LEFT JOIN unnest(x_id, x_version) x (id, version) ON x.id = w.id
          WHERE NOT aligned ORDER BY w.id, w.seq DESC)),
      -- Expected to be new: the primary key refuses a customer that exists.
      created AS (INSERT INTO customers (customer_id, version, email)
        SELECT id, version, email FROM latest WHERE expected = 0),
      changed AS (INSERT INTO customers (customer_id, version, email)
        SELECT id, version, email FROM latest WHERE expected IS DISTINCT FROM 0
        ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version, email = excluded.email)
      INSERT INTO idempotency_keys (actor, key, seq)
        SELECT actor, key, seq FROM w WHERE type = 'customer.created' AND key IS NOT NULL;
    EXCEPTION WHEN unique_violation OR cardinality_violation THEN
      clean := false;
    END;
  END IF;
  IF NOT clean THEN
    RETURN append_group_in_turn(items, p_item, p_type, p_id, p_version, p_time, p_actor,
      p_request_id, p_key, p_hash, p_data, p_email, x_item, x_id, x_version)
      || jsonb_build_object('wait', waited);
  END IF;
  IF n > 0 THEN
    UPDATE log_head SET seq = head + n;
    -- Named by schema (channels are per database): the events when they fit, else the head.
    notice := '{"schema":' || to_json(current_schema())::text || ',"first":' || head ||
      ',"events":' || p_notice || '}';
    IF notice IS NULL OR octet_length(notice) >= 8000 THEN
      notice := '{"schema":' || to_json(current_schema())::text || ',"head":' || (head + n) || '}';
    END IF;
    PERFORM pg_notify('customer_api_log', notice);
  END IF;
  RETURN jsonb_build_object('first', head, 'refused', '[]'::jsonb, 'wait', waited);
END
$fn$;
`;
