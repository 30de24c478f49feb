/**
 * One `customers` row per customer in place of a `streams` row and a `customer_emails` row: its
 * stream's version and, while it lives, its email (unique, lowercased). A create then writes one
 * row and two index entries fewer. `append_group_in_turn`, which checks appends one after another
 * (append_function.ts), reads and writes that row instead.
 */
export const CUSTOMERS_TABLE = `
CREATE TABLE customers (customer_id text PRIMARY KEY, version integer NOT NULL, email text);
INSERT INTO customers (customer_id, version, email)
  SELECT s.customer_id, s.version, e.email FROM streams s LEFT JOIN customer_emails e
    USING (customer_id);
CREATE UNIQUE INDEX customers_email_key ON customers (lower(email));
DROP TABLE customer_emails, streams;
CREATE OR REPLACE FUNCTION append_group_in_turn(
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
  SELECT seq INTO head FROM log_head FOR UPDATE;
  SELECT coalesce(jsonb_object_agg(customer_id, version), '{}') INTO versions
    FROM customers WHERE customer_id = ANY (x_id);
  SELECT coalesce(jsonb_object_agg(lower(email), customer_id), '{}'),
      coalesce(jsonb_object_agg(customer_id, lower(email)), '{}') INTO owners, owned
    FROM customers
    WHERE lower(email) = ANY (ARRAY(SELECT lower(m) FROM unnest(p_email) m WHERE m IS NOT NULL));
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
    -- The last event of each customer decides its version and email (none once deleted).
    latest AS (SELECT DISTINCT ON (id) id, version, data, email FROM w ORDER BY id, seq DESC),
    c AS (INSERT INTO customers (customer_id, version, email)
      SELECT id, version, CASE WHEN data IS NULL THEN NULL ELSE email END FROM latest
      ON CONFLICT (customer_id) DO UPDATE SET version = excluded.version, email = excluded.email)
    INSERT INTO idempotency_keys (actor, key, seq)
      SELECT actor, key, seq FROM w WHERE type = 'customer.created' AND key IS NOT NULL;
    UPDATE log_head SET seq = head + written;
    PERFORM pg_notify('customer_api_log', '');
  END IF;
  RETURN jsonb_build_object('first', head, 'refused', refused);
END
$fn$;
`;
