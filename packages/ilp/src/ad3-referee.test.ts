/**
 * HiGHS referees core's AD3 engine on random small factor graphs and constrained chains (see
 * testing/ad3-suites.ts): a few dozen instances per property here, thousands in
 * ad3-referee.slow.test.ts (the integration tier).
 */
import { ad3RefereeSuites } from "./testing/ad3-suites.js";

ad3RefereeSuites(
  {
    selfCheck: 20,
    converged: 60,
    certificates: 120,
    exact: 60,
    positionsCertificates: 40,
    positionsExact: 20,
  },
  29_000,
);
