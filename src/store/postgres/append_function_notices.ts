/**
 * The group commit's server-side function, fourth form: the third (append_function_constrained.ts)
 * with its notification split. `p_notice` holds the group's events in lines of `offset:[events]`
 * (offset from the group's first event), each line one notification, so that a group too
 * large for one still reaches other replicas without their reading it back; a line that would not
 * fit (over 8000 bytes), or none at all, ends them with the head. A third-form caller's single
 * line (no offset) still works.
 */
import { APPEND_FUNCTION_CONSTRAINED } from "./append_function_constrained.ts";

const ONE_NOTICE = `
    notice := '{"schema":' || to_json(current_schema())::text || ',"first":' || head ||
      ',"events":' || p_notice || '}';
    IF notice IS NULL OR octet_length(notice) >= 8000 THEN
      notice := '{"schema":' || to_json(current_schema())::text || ',"head":' || (head + n) || '}';
    END IF;
    PERFORM pg_notify('customer_api_log', notice);`;

const NOTICE_PER_LINE = `
    told := coalesce(p_notice, '') <> '';
    FOREACH line IN ARRAY coalesce(string_to_array(p_notice, E'\\n'), '{}') LOOP
      -- Only a caller of the third form sends a line without an offset, and only one.
      at := CASE WHEN strpos(line, '[') > 1 THEN rtrim(left(line, strpos(line, '[') - 1), ':')::int
        WHEN strpos(p_notice, E'\\n') = 0 THEN 0 END;
      told := at IS NOT NULL;
      EXIT WHEN NOT told;
      notice := '{"schema":' || to_json(current_schema())::text || ',"first":' || (head + at) ||
        ',"events":' || substr(line, strpos(line, '[')) || '}';
      told := octet_length(notice) < 8000;
      EXIT WHEN NOT told;
      PERFORM pg_notify('customer_api_log', notice);
    END LOOP;
    IF NOT told THEN
      PERFORM pg_notify('customer_api_log',
        '{"schema":' || to_json(current_schema())::text || ',"head":' || (head + n) || '}');
    END IF;`;

function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error("append_function_notices: the third form changed");
  return text.replace(from, to);
}

export const APPEND_FUNCTION_NOTICES = replaced(
  replaced(APPEND_FUNCTION_CONSTRAINED, ONE_NOTICE, NOTICE_PER_LINE),
  "  notice text;\n",
  "  notice text;\n  line text;\n  at int;\n  told boolean;\n",
);
