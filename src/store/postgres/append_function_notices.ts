/**
 * The group commit's server-side function, fourth form: the third (append_function_constrained.ts)
 * with its notification split. `p_notice` holds the group's events in lines of `offset:[events]`
 * (a line without an offset starts the group), each line one notification, so that a group too
 * large for one still reaches other replicas without their reading it back; a line that would not
 * fit (over 8000 bytes) ends them with the head. A third-form caller's single line still works.
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
    told := p_notice IS NOT NULL;
    FOREACH line IN ARRAY coalesce(string_to_array(p_notice, E'\\n'), '{}') LOOP
      at := coalesce(nullif(rtrim(left(line, strpos(line, '[') - 1), ':'), '')::int, 0);
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
