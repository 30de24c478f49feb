import { READ_SCOPE, WRITE_SCOPE } from "../auth/scopes.ts";
import type { ApiModule, Endpoint, Handler } from "../http/api_module.ts";
import type { Route } from "../http/router.ts";
import { customerHandlers } from "./customer_handlers.ts";
import { CUSTOMER_API } from "./customer_openapi.ts";
import type { CustomerService } from "./customer_service.ts";

/** What the customer module is built from. */
export interface CustomerModuleDeps {
  service: CustomerService;
  /** The request body limit in bytes. */
  maxBodyBytes: number;
  /** How long a request body may take to arrive, in ms (BODY_TIMEOUT). */
  bodyTimeoutMs?: number;
}

const read = (handler: Handler): Endpoint => ({ scope: READ_SCOPE, handler });
const write = (handler: Handler): Endpoint => ({ scope: WRITE_SCOPE, handler });

/** The customer endpoints of contract §4 as route rows, each method with the scope it needs. */
export function customerRoutes(deps: CustomerModuleDeps): Route<Endpoint>[] {
  const customers = customerHandlers(deps.service, deps.maxBodyBytes, deps.bodyTimeoutMs);
  return [
    {
      pathname: "/api/customers",
      methods: { GET: read(customers.list), POST: write(customers.create) },
    },
    {
      pathname: "/api/customers/:id",
      methods: {
        GET: read(customers.read),
        PUT: write(customers.replace),
        PATCH: write(customers.patch),
        DELETE: write(customers.remove),
      },
    },
  ];
}

/** The customer module: its route rows, its part of the OpenAPI document and its scopes. */
export function customerModule(deps: CustomerModuleDeps): ApiModule {
  return { ...CUSTOMER_API, routes: customerRoutes(deps) };
}
