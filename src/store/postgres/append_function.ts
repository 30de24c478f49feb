/**
 * The server-side function a group commit calls, so the whole append is one statement in one round
 * trip, committed on its own (autocommit): lock the log head, check every invariant, write the
 * accepted appends with their seqs, move the head, NOTIFY. The log head stays locked only for the
 * time the server works and flushes, not for round trips to the service.
 *
 * Input: the group's events as parallel arrays, one per column, `item` numbering each event's append
 * (1…items); the expected versions as three more arrays (append, customer id, version).
 * Output: `{"first": head before, "refused": [[append, kind, …details], …]}`, where kind is
 * `version` (id, expected, actual), `key` (actor, key) or `email` (email). Each append is refused
 * on its own; accepted ones count for the appends after them, as one process would see them.
 * A unique violation left (an email passed between customers inside the group) aborts the call;
 * the service then retries the group append by append (append_each.ts).
 */
export const APPEND_FUNCTION = `
CREATE FUNCTION append_group(
  items int, p_item int[], p_type text[], p_id text[], p_version int[], p_time text[],
  p_actor text[], p_request_id text[], p_key text[], p_hash text[], p_data text[],
  p_email text[], x_item int[], x_id text[], x_version int[]
) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  head bigint;
  n int := coalesce(array_length(p_item, 1), 0);
  versions jsonb; -- customer id → version
  owners jsonb; -- lower(email) → customer id, for the emails of the group
  owned jsonb; -- customer id → lower(email), the same pairs the other way
  taken jsonb; -- 'actor key' → true
  refused jsonb := '[]';
  rejected int[] := '{}';
  written int := 0;
  reason jsonb;
  a int := 1; -- first event of the current append
  b int;
  e int;
  actual int;
  lowered text;
BEGIN
  -- The lock that orders commits: held until this call's transaction commits.
  SELECT seq INTO head FROM log_head FOR UPDATE;
  SELECT coalesce(jsonb_object_agg(customer_id, version), '{}') INTO versions
    FROM streams WHERE customer_id = ANY (x_id);
  SELECT coalesce(jsonb_object_agg(lower(email), customer_id), '{}'),
      coalesce(jsonb_object_agg(customer_id, lower(email)), '{}') INTO owners, owned
    FROM customer_emails
    WHERE lower(email) = ANY (ARRAY(SELECT lower(m) FROM unnest(p_email) m WHERE m IS NOT NULL));
  -- Pair by pair through the primary key: one actor (a service's token) may hold many keys.
  SELECT coalesce(jsonb_object_agg(k.actor || ' ' || k.key, true), '{}') INTO taken
    FROM unnest(p_actor, p_key) q (actor, key)
    JOIN idempotency_keys k ON k.actor = q.actor AND k.key = q.key;
  FOR x IN 1 .. items LOOP
    b := a;
    WHILE b <= n AND p_item[b] = x LOOP b := b + 1; END LOOP;
    reason := NULL;
    FOR e IN 1 .. coalesce(array_length(x_item, 1), 0) LOOP
      CONTINUE WHEN x_item[e] <> x;
      actual := coalesce((versions ->> x_id[e])::int, 0);
      IF actual <> x_version[e] THEN
        reason := jsonb_build_array(x, 'version', x_id[e], x_version[e], actual);
        EXIT;
      END IF;
    END LOOP;
    -- The key before the email: a repeated keyed create is answered again, not refused.
    IF reason IS NULL THEN
      FOR e IN a .. b - 1 LOOP
        IF p_key[e] IS NOT NULL AND taken ? (p_actor[e] || ' ' || p_key[e]) THEN
          reason := jsonb_build_array(x, 'key', p_actor[e], p_key[e]);
          EXIT;
        END IF;
      END LOOP;
    END IF;
    IF reason IS NULL THEN
      FOR e IN a .. b - 1 LOOP
        IF (owners ->> lower(p_email[e])) <> p_id[e] THEN
          reason := jsonb_build_array(x, 'email', p_email[e]);
          EXIT;
        END IF;
      END LOOP;
    END IF;
    IF reason IS NOT NULL THEN
      refused := refused || jsonb_build_array(reason);
      rejected := rejected || x;
    ELSE
      FOR e IN a .. b - 1 LOOP
        versions := versions || jsonb_build_object(p_id[e], p_version[e]);
        lowered := owned ->> p_id[e];
        IF lowered IS NOT NULL THEN owners := owners - lowered; owned := owned - p_id[e]; END IF;
        IF p_email[e] IS NOT NULL THEN
          owners := owners || jsonb_build_object(lower(p_email[e]), p_id[e]);
          owned := owned || jsonb_build_object(p_id[e], lower(p_email[e]));
        END IF;
        IF p_key[e] IS NOT NULL THEN
          taken := taken || jsonb_build_object(p_actor[e] || ' ' || p_key[e], true);
        END IF;
      END LOOP;
      written := written + (b - a);
    END IF;
    a := b;
  END LOOP;
  IF written > 0 THEN
    WITH w AS (
      SELECT t.*, head + row_number() OVER (ORDER BY t.ord) AS seq
      FROM unnest(p_item, p_type, p_id, p_version, p_time, p_actor, p_request_id, p_key, p_hash,
        p_data, p_email) WITH ORDINALITY
        AS t(item, type, id, version, time, actor, request_id, key, hash, data, email, ord)
      WHERE t.item <> ALL (rejected)
    ),
    ev AS (INSERT INTO events
      (seq, type, customer_id, version, time, actor, request_id, idempotency_key, request_hash, data)
      SELECT seq, type, id, version, time, actor, request_id, key, hash, data FROM w),
    -- The last event of each customer decides its stream version and email.
    latest AS (SELECT DISTINCT ON (id) id, version, data, email FROM w ORDER BY id, seq DESC),
    s AS (INSERT INTO streams (customer_id, version) SELECT id, version FROM latest
      ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version),
    d AS (DELETE FROM customer_emails
      WHERE customer_id IN (SELECT id FROM latest WHERE data IS NULL)),
    m AS (INSERT INTO customer_emails (customer_id, email)
      SELECT id, email FROM latest WHERE data IS NOT NULL
      ON CONFLICT (customer_id) DO UPDATE SET email = excluded.email)
    INSERT INTO idempotency_keys (actor, key, seq)
      SELECT actor, key, seq FROM w WHERE type = 'customer.created' AND key IS NOT NULL;
    UPDATE log_head SET seq = head + written;
    -- Followers read log_head rather than trust a payload (channels are per database).
    PERFORM pg_notify('customer_api_log', '');
  END IF;
  RETURN jsonb_build_object('first', head, 'refused', refused);
END
$fn$;
`;
