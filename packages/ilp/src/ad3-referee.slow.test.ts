/**
 * The AD3 referee (testing/ad3-suites.ts) over thousands of random instances: no wrong certificate
 * in any of them. Integration tier (about a minute).
 */
import { ad3RefereeSuites } from "./testing/ad3-suites.js";

ad3RefereeSuites(
  {
    selfCheck: 200,
    converged: 1000,
    certificates: 4000,
    exact: 1500,
    positionsCertificates: 2000,
    positionsExact: 1000,
  },
  29_100,
);
