import type { CustomerService } from "../../src/customers/customer_service.ts";
import { parseListQuery } from "../../src/customers/list_query.ts";
import { idOf } from "../../src/read_model/text_table.ts";

/** The ids a list request (a query string such as "?limit=10") answers, and whether more match. */
export async function listed(
  service: CustomerService,
  search = "",
): Promise<{ ids: string[]; more: boolean }> {
  const { page } = await service.lists.page(parseListQuery(search));
  return { ids: page.texts.map(idOf), more: page.more };
}
