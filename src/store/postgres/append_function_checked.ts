/**
 * The group commit's server-side function, second form: most groups hold no append the database
 * could refuse, and those are checked by a few set-wise queries and written at once. A group that
 * might refuse one (a customer in two appends, a version moved on, a key or an email taken, an
 * email two customers of the group name) goes to the first form, renamed `append_group_in_turn`,
 * which checks the appends one after another (append_function.ts). Same arguments and result,
 * plus `wait`: the seconds the call waited for the log-head lock.
 *
 * `p_notice`, the group's events as a JSON array (notified_tail.ts), goes to the other replicas
 * with the commit's notification, so that they need not read them: `{"schema", "first",
 * "events"}`, or `{"schema", "head"}` when too long for a notification (8000 bytes) or not given.
 */
export const APPEND_FUNCTION_CHECKED = `
ALTER FUNCTION append_group(int, int[], text[], text[], int[], text[], text[], text[], text[],
  text[], text[], text[], int[], text[], int[]) RENAME TO append_group_in_turn;
CREATE FUNCTION append_group(
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
BEGIN
  -- The lock that orders commits: held until this call's transaction commits.
  SELECT seq INTO head FROM log_head FOR UPDATE;
  waited := extract(epoch FROM clock_timestamp() - called);
  -- Scalar subqueries, so that each lookup stays one probe of an index however the tables grow
  -- (a join may be planned as a scan of the whole table from statistics of when it was small).
  IF EXISTS (SELECT FROM unnest(p_item, p_id) e (item, id)
      GROUP BY id HAVING min(item) <> max(item))
    OR EXISTS (SELECT FROM unnest(x_id, x_version) x (id, version)
      WHERE coalesce((SELECT s.version FROM streams s WHERE s.customer_id = x.id), 0) <> x.version)
    OR EXISTS (SELECT FROM unnest(p_actor, p_key) q (actor, key) WHERE q.key IS NOT NULL
      AND (SELECT true FROM idempotency_keys k WHERE k.actor = q.actor AND k.key = q.key))
    OR EXISTS (SELECT FROM unnest(p_actor, p_key) q (actor, key) WHERE key IS NOT NULL
      GROUP BY actor, key HAVING count(*) > 1)
    OR EXISTS (SELECT FROM unnest(p_id, p_email) q (id, email) WHERE q.email IS NOT NULL
      AND (SELECT c.customer_id FROM customer_emails c WHERE lower(c.email) = lower(q.email)) <> q.id)
    OR EXISTS (SELECT FROM unnest(p_id, p_email) q (id, email) WHERE email IS NOT NULL
      GROUP BY lower(email) HAVING min(id) <> max(id))
  THEN
    RETURN append_group_in_turn(items, p_item, p_type, p_id, p_version, p_time, p_actor,
      p_request_id, p_key, p_hash, p_data, p_email, x_item, x_id, x_version)
      || jsonb_build_object('wait', waited);
  END IF;
  IF n > 0 THEN
    WITH w AS (
      SELECT t.*, head + t.ord AS seq
      FROM unnest(p_type, p_id, p_version, p_time, p_actor, p_request_id, p_key, p_hash, p_data,
        p_email) WITH ORDINALITY
        AS t(type, id, version, time, actor, request_id, key, hash, data, email, ord)
    ),
    ev AS (INSERT INTO events
      (seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash, data)
      SELECT seq, type, id, version, time, actor, request_id, key, hash, data FROM w),
    -- The last event of each customer decides its stream version and email.
    latest AS (SELECT DISTINCT ON (id) id, version, data, email FROM w ORDER BY id, seq DESC),
    s AS (INSERT INTO streams (customer_id, version) SELECT id, version FROM latest
      ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version),
    d AS (DELETE FROM customer_emails
      WHERE customer_id = ANY (ARRAY(SELECT id FROM latest WHERE data IS NULL))),
    m AS (INSERT INTO customer_emails (customer_id, email)
      SELECT id, email FROM latest WHERE data IS NOT NULL
      ON CONFLICT (customer_id) DO UPDATE SET email = excluded.email)
    INSERT INTO idempotency_keys (actor, key, seq)
      SELECT actor, key, seq FROM w WHERE type = 'customer.created' AND key IS NOT NULL;
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
