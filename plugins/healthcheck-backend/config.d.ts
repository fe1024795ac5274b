import { HumanDuration } from '@backstage/types';

export interface Config {
  /** Configuration of the Vigil health-check plugin. */
  healthcheck?: {
    // Deep visibility, so that the plain form's value is secret too:
    // `@visibility` on this object would cover the object alone.
    /**
     * Values that checks reference as `${secret:NAME}` in http headers and
     * bodies and in tcp `send`, each with where it may go. Never stored with
     * runs, never returned by the API, redacted from results and logs (also
     * URL-encoded, JSON- and HTML-escaped, re-cased, hex and base64).
     *
     * A check that references a secret it may not use (unknown, another
     * namespace's, or aimed at an origin not allowed) is refused when it is
     * loaded, and a probe never resolves a secret for an origin not allowed.
     *
     * The plain form `NAME: value` is deprecated: any check in any
     * namespace may send it to any origin, and a warning names it at start.
     * @deepVisibility secret
     */
    secrets?: {
      [name: string]:
        | string
        | {
            /**
             * The secret itself.
             * @visibility secret
             */
            value: string;
            /**
             * Where the value may be sent: origins such as
             * `https://api.example.com` (port 443 implied),
             * `http://status.internal:8080`, `tcp://db.example.com:5432`
             * (for tcp and tls checks; a port is required), or with `*` as
             * exactly one leading label, `https://*.example.com` (matches
             * `api.example.com`, not `example.com` nor `a.b.example.com`).
             * Scheme and port must match: `https://` does not allow
             * `http://`. `['*']` allows every origin; any check that may
             * use the secret can then send it to a host its author runs.
             */
            allowedOrigins: string[];
            /**
             * The catalog namespaces whose checks may use the secret (those
             * of HealthCheck entities). Default: every namespace.
             */
            allowedNamespaces?: string[];
          };
    };

    /** Which addresses probes may reach. */
    network?: {
      /**
       * Let probes reach loopback (127.0.0.0/8, ::1). Default false; the demo
       * and the tests turn it on, and app-config.production.yaml turns it off
       * again.
       *
       * Risk: loopback is the backend's own host. With it open, anyone who may
       * write a check (a HealthCheck entity in any catalog repository, or the
       * API) can make a `tcp` probe connect to any local port and write its
       * `send` payload there: a command to a local Redis or memcached, a
       * request to an admin port or a sidecar that trusts local callers. An
       * `http` probe can likewise call local admin endpoints. Open it only
       * where nothing on the host listens that a stranger may not drive.
       */
      allowLoopback?: boolean;
      /**
       * Let probes reach private and other non-public ranges (10/8,
       * 172.16/12, 192.168/16, 100.64/10, fc00::/7 and the like). Default
       * false. Link-local and cloud metadata addresses are refused always.
       */
      allowPrivate?: boolean;

      /**
       * How probes look names up: with c-ares on the event loop, never with
       * getaddrinfo on libuv's small thread pool, where names that never
       * answer would queue every other lookup behind them. `localhost` and
       * `*.localhost` are loopback; the hosts file (read at the first lookup,
       * again when older than 30 s) answers before DNS; the search list and
       * ndots of resolv.conf apply.
       */
      dns?: {
        /**
         * One lookup, waiting for a free slot included, as a duration.
         * Default 5s.
         */
        timeout?: HumanDuration | string;
        /** Lookups asking DNS at once. Default 128. */
        maxInFlight?: number;
        /**
         * Lookups waiting for a slot; one more fails at once with a clear
         * error. Default 1024.
         */
        maxQueued?: number;
      };
    };

    /** Checks declared in the catalog. */
    checks?: {
      /**
       * Which systems (and checks) an entity declared in the catalog may
       * reach: a HealthCheck the systems it monitors, a MaintenanceWindow
       * the systems and checks it covers, a ServiceLevelObjective its
       * system and check. 'owner': only those owned by the entity's
       * spec.owner (an entity without an owner reaches none); 'any': every
       * one it names. One setting for every kind, so widening one kind
       * cannot be forgotten for another. Anyone who can register a catalog
       * file can name any system, so 'any' lets one team attach a failing
       * check to another team's system and page it, mute its outage
       * notifications with a window, or page it with a strict objective.
       * A refused target is a catalog processing error at its field, and
       * the backend refuses it again wherever it reads the entity. Checks
       * and windows made through the API are judged by permissions
       * instead. Default 'owner'.
       */
      fromCatalog?: 'owner' | 'any';
    };

    /** Maintenance windows. */
    maintenance?: {
      /**
       * MaintenanceWindow entities that may cover one system (and one
       * check); those beyond are refused for it, with a warning that names
       * the entity and field. The system owner's own come first, then
       * entity ref order. A whole number from 1 to 1000. Default 20.
       */
      maxWindowsPerSystem?: number;
    };

    /** What the catalog module needs to know to validate HealthCheck entities. */
    catalog?: {
      /**
       * Probe types that backend modules add to the health-check plugin
       * (through its extension point). The catalog is another plugin and
       * cannot see them, so it refuses HealthCheck entities that name a type
       * it does not know unless it is listed here; the health-check backend
       * judges such a check's config when it loads it, and a check that
       * fails there runs nowhere (a warning names it). The built-in types
       * need no listing.
       */
      moduleProbeTypes?: string[];
    };

    /**
     * The shortest interval a check may have, as a duration. A HealthCheck
     * entity below it gets a catalog processing error; the API refuses it
     * with a 400. Default 5s.
     */
    minimumInterval?: HumanDuration | string;

    /** Where a system's environments may come from. */
    environments?: {
      /**
       * Which member Components and Resources of a system may add an
       * environment to it with the `vigil.dev/environment` annotation.
       * 'owner' (the default): only members whose spec.owner is the
       * system's owner (refs compared canonically: kind group and the
       * entity's own namespace when it names none); what another member
       * would add is left out, with a warning in the reconciler's log that
       * names it. 'any': every member, as before; then any team with a
       * component in a system can add an environment to it, whose failing
       * slices page the system's owner.
       */
      fromMembers?: 'owner' | 'any';
    };

    /** How check targets are rendered. */
    targets?: {
      /**
       * Let a placeholder pick a target's host: a host that is only
       * placeholders, or that does not end in at least two labels the
       * template fixes (`https://{{ system.name }}/health`,
       * `https://{{ environment.name }}.internal/health`,
       * `tcp://{{ system.name }}-db.{{ environment.name }}:5432`). Default
       * false: such a target is a validation problem, and its slices are
       * refused. The risk of true: the values come from other teams'
       * entities (a system's name, an environment a member adds), so
       * whoever can name one can send a check's probe, with its headers
       * and `${secret:...}` values, to any host of that shape their DNS
       * reaches. Values are still single DNS labels either way.
       */
      allowPlaceholderHosts?: boolean;
    };

    /**
     * The reconciler, which derives the desired slices from the catalog and
     * the stored checks and writes them to the database for every instance.
     */
    reconcile?: {
      /**
       * Between full passes (one instance at a time runs them), as a
       * duration such as `5m`. A full pass also runs at start. Default 5m.
       */
      interval?: HumanDuration | string;
      /**
       * Between polls of the catalog for changed systems, members and
       * HealthCheck entities (compared by etag); each change is reconciled
       * for its system alone. Default 30s.
       */
      catalogPollInterval?: HumanDuration | string;
      /**
       * The share of the time the catalog poll may take, above 0 and at
       * most 1: after a poll that took T, the next waits at least T divided
       * by this (and at most the full-pass interval), so a large catalog is
       * polled less often than `catalogPollInterval`. Default 0.01 (1%).
       */
      catalogPollBudget?: number;
    };

    /** Backend instances sharing one PostgreSQL database. */
    instances?: {
      /**
       * Between heartbeats, which also refresh this instance's view of the
       * live instances. Default 5s.
       */
      heartbeatInterval?: HumanDuration | string;
      /**
       * An instance silent this long is dead, and the others take its
       * slices over. At least two heartbeats. Default 15s.
       */
      ttl?: HumanDuration | string;
    };

    /**
     * Outage mode: while the database cannot be reached, each instance
     * keeps probing the slices it owned under the last membership it saw
     * and keeps the results in memory, written back once the database
     * answers.
     */
    outage?: {
      /**
       * Run results one instance keeps in memory at most while the
       * database is away; past it the oldest are dropped (and counted in
       * `healthcheck.journal.entries`). Default 100000: ten minutes of
       * 10,000 slices at the default interval of 1m.
       */
      maxJournaledRuns?: number;
      /**
       * Heartbeat pings one instance keeps in memory at most while the
       * database is away (answered 202, written at the time they came once
       * it answers); past it the oldest are dropped (counted in
       * `healthcheck.pings.journal.entries`). Default 10000.
       */
      maxJournaledPings?: number;
    };

    /** How long run history is kept, each at least a day. */
    history?: {
      /** Raw runs, as a duration such as `14d`. Default 14 days. */
      runRetention?: HumanDuration | string;
      /**
       * Hourly aggregates (count, failures, latency percentiles, up-time
       * seconds), as a duration such as `400d`; at least runRetention.
       * Default 400 days.
       */
      aggregateRetention?: HumanDuration | string;
      /**
       * Raw runs, in whole days.
       * @deprecated Use `runRetention`, which wins when both are set.
       */
      runRetentionDays?: number;
      /**
       * Hourly aggregates, in whole days.
       * @deprecated Use `aggregateRetention`, which wins when both are set.
       */
      aggregateRetentionDays?: number;
    };

    /** Service-level objectives (ServiceLevelObjective entities). */
    slo?: {
      /**
       * ServiceLevelObjective entities that may count for one system;
       * those beyond are shown nowhere and alert no one, with a warning
       * that names the entity and field. The system owner's own come
       * first, then entity ref order. A whole number from 1 to 1000.
       * Default 20.
       */
      maxObjectivesPerSystem?: number;
      /**
       * Multi-window burn-rate alerts to the system's owner, as the SRE
       * workbook recommends: `page` when the budget burns this many times
       * too fast over both 1h and 5m (default 14.4), `ticket` over both 6h
       * and 30m (default 6).
       */
      alerts?: {
        page?: { burnRate?: number };
        ticket?: { burnRate?: number };
      };
    };

    /** The per-system rollup that badges, graph nodes and pages read. */
    rollup?: {
      /**
       * Environment changes of a system within one window, on any instance,
       * cause one recompute of its rollup, at the window's end. Default 2s.
       */
      window?: HumanDuration | string;
    };

    /**
     * The sweep, which re-derives every environment's status and every
     * system's rollup from durable state and repairs what the live path
     * missed (a crash between a run's write and its follow-up, a failed
     * write, a rollup window whose instance died): a missed transition is
     * made and told once, as it would have been.
     */
    sweep?: {
      /**
       * Between sweeps (one instance at a time runs them), as a duration
       * of at least 5s. Each reads every system a page at a time and
       * recomputes only what differs. Default 1m.
       */
      interval?: HumanDuration | string;
    };

    /** Notifications to a system's owner on environment transitions. */
    notifications?: {
      /**
       * Environments whose outages notify with high severity; others use
       * normal. Default ['production', 'prod'].
       */
      productionEnvironments?: string[];
      /**
       * Send nothing when an unhealthy upstream system explains the outage
       * (see upstreamAttribution; the notification would otherwise say
       * "upstream"). Default false.
       */
      suppressUpstream?: boolean;
      /**
       * When an unhealthy upstream system (one the system depends on)
       * explains an environment's outage: 'targets', only when one of the
       * environment's failing checks targets a component of that system
       * (the check's spec.components; the component's spec.system); 'any',
       * whenever one is unhealthy. Default 'targets'.
       */
      upstreamAttribution?: 'targets' | 'any';
      /**
       * While an upstream system explains an environment's outage, its
       * owner gets one notification for the upstream incident (scoped to
       * it, updated as the environment flips) instead of one per flip.
       * Default true.
       */
      groupUpstreamIncidents?: boolean;
      /**
       * With suppressUpstream: an environment still unhealthy this long
       * after the upstream system that explained its outage recovered is
       * told once, as its own outage. Default 5m.
       */
      upstreamGrace?: HumanDuration | string;
      /**
       * Re-notify the owner of an environment still unhealthy this long
       * after its outage was told, and again after each such period (the
       * one notification is updated and marked unread). At least 1m.
       * Default: off.
       */
      remindAfter?: HumanDuration | string;
    };

    /** Status badges under /api/healthcheck/v1/badges. */
    badges?: {
      /**
       * Let anonymous readers load badges, and nothing else (needed for
       * READMEs outside Backstage and for shields.io). Default false: badges
       * need a Backstage user or the user cookie.
       * @visibility backend
       */
      public?: boolean;
      /**
       * With `public`, systems whose badges anonymous readers may load even
       * where the permission policy does not let an anonymous caller read
       * them in the catalog (`system:default/payments`, or `payments`).
       * Every other badge shows only what its reader may read in the
       * catalog. Default none.
       * @visibility backend
       */
      publicSystems?: string[];
    };

    /** `POST /v1/checks/{id}/run`: running a check now. */
    runNow?: {
      /**
       * Requests one caller (a user or a service) may make a minute, per
       * backend instance: a burst of as many, then one every 60/n seconds.
       * More are answered 429 with Retry-After. Default 6.
       */
      perCallerPerMinute?: number;
    };

    /** Heartbeat checks: the ping URLs jobs call. */
    heartbeats?: {
      /**
       * Pings one ping URL may take a minute, per backend instance (counts
       * are kept for the 10,000 most recently pinged URLs); more are
       * answered 429 with Retry-After. Default 30.
       */
      pingsPerMinute?: number;
      /**
       * DEMO ONLY: ping tokens fixed in configuration, so a demo's pinger
       * needs no API call. Anyone who reads the configuration can ping these
       * slices; never use this in production.
       * @visibility backend
       */
      demoTokens?: Array<{
        /** The check's id. */
        check: string;
        /** The system's ref, such as system:default/analytics. */
        system: string;
        environment: string;
        token: string;
      }>;
    };

    /** The in-process scheduler of this backend instance. */
    scheduler?: {
      /**
       * Ticks due within this duration of each other run as one batch (one
       * database round trip). `0ms` turns it off. Default 2ms.
       */
      coalesceWindow?: HumanDuration | string;
      /**
       * The same in milliseconds.
       * @deprecated Use `coalesceWindow`, which wins when both are set.
       */
      coalesceWindowMs?: number;
      /**
       * How often this instance looks for slices the reconciler changed
       * (a read of one counter when nothing did). Default 2s.
       */
      refreshInterval?: HumanDuration | string;
    };

    /** How many probes run at once, and the slow-check bulkhead. */
    admission?: {
      /** Probes this instance runs at once. Default 20. */
      concurrency?: number;
      /** Probes of suspect (slow, failing) slices at once. Default 3. */
      laneCapacity?: number;
      /** Slow transport failures in a row that make a slice suspect. Default 3. */
      suspectAfterRuns?: number;
      /** Every Nth suspect run uses the full timeout, to see recovery. Default 5. */
      recoveryProbeEvery?: number;
      /** A shrunk timeout is never below this duration. Default 1s. */
      timeoutFloor?: HumanDuration | string;
      /**
       * The same in milliseconds.
       * @deprecated Use `timeoutFloor`, which wins when both are set.
       */
      timeoutFloorMs?: number;
      /**
       * Slots one target endpoint (scheme, host and port) may always use;
       * beyond that it takes another only while this many stay free for
       * other endpoints. Default 3.
       */
      endpointShare?: number;
    };
  };
}
