/** The feed as the service runs it: stream tokens, the feed module and its index. */
import type { Config } from "../config.ts";
import type { CustomerService } from "../customers/customer_service.ts";
import type { BackgroundHealth } from "../ops/background_health.ts";
import type { EventStore } from "../store/event_store.ts";
import { type FeedModule, feedModule } from "./feed_routes.ts";
import { acceptingStreamTokens, StreamTokens } from "./stream_tokens.ts";
import { createAuthenticator } from "../auth/authenticator.ts";
import { TokenCache } from "../auth/token_cache.ts";
import type { VerificationKey } from "../auth/verification_key.ts";
import type { Authenticate } from "../auth/authenticator.ts";
import type { Principal } from "../http/api_module.ts";
import type { StartSpan } from "../lib/trace_span.ts";
import { tracedTokenCheck } from "../auth/traced_token_check.ts";

/** The feed module, the API's token check (stream tokens too), and the replay's end. */
export interface FeedFeature {
  feed: FeedModule;
  /** Bearer tokens as contract §2 says, and on the event stream a stream token as well. */
  authenticate: Authenticate;
  replayed(): void;
}

/** Builds the feed over `store` and every event `service` applies; `span` traces token checks. */
export function feedFeature(
  config: Config,
  store: EventStore,
  service: CustomerService,
  { key, algorithms }: Pick<VerificationKey, "key" | "algorithms">,
  health: BackgroundHealth,
  span?: StartSpan,
): FeedFeature {
  // Keyed from the shared secret when there is one, so every replica accepts every stream token.
  const tokens = new StreamTokens(
    key instanceof Uint8Array ? key : undefined,
    config.streamTokenTtlMs,
  );
  // The index is built once the replay is done, which tells no commit listener.
  const replayed = Promise.withResolvers<void>();
  const feed = feedModule({
    store,
    // Every event applied: this replica's own and (on PostgreSQL) the other replicas'.
    onCommit: (listener) => {
      service.addCommitListener(listener);
      service.follower.addFollowListener(listener);
    },
    isLive: (id) => service.snapshots.isLive(id),
    tokens,
    retentionMs: config.eventRetentionMs,
    maxStreams: config.maxStreams,
    heartbeatMs: config.sseHeartbeatMs,
    replayed: replayed.promise,
    onIndexError: (error) => health.failed("feed_index", error),
  });
  void feed.index.ready.then(() => health.succeeded("feed_index"));
  const bearer = createAuthenticator({
    key,
    algorithms,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
    cache: new TokenCache<Principal>(),
  });
  return {
    feed,
    authenticate: acceptingStreamTokens(tokens, tracedTokenCheck(bearer, span)),
    replayed: () => replayed.resolve(),
  };
}
