/**
 * The group commit's function plans its statements once per connection: custom plans, made
 * again for each call's arrays, cost the database more per event than the statements' work
 * (bench/postgres/append_cpu.ts). A later CREATE OR REPLACE of the function drops this setting.
 */
export const GENERIC_PLANS = `
ALTER FUNCTION append_group(int, int[], text[], text[], int[], text[], text[], text[], text[],
  text[], text[], text[], int[], text[], int[], text) SET plan_cache_mode = force_generic_plan;
`;
