/**
 * HiGHS referees core's AD3 engine on random small factor graphs and constrained chains (see
 * testing/ad3-suites.ts): a few hundred instances per property here, thousands in
 * ad3-referee.slow.test.ts (the integration tier).
 */
import { ad3RefereeSuites } from "./testing/ad3-suites.js";

ad3RefereeSuites(
  {
    selfCheck: 20,
    converged: 150,
    certificates: 300,
    exact: 150,
    positionsCertificates: 80,
    positionsExact: 40,
  },
  29_000,
);
