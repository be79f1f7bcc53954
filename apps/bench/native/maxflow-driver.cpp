// Times Kolmogorov's MAXFLOW (Debian's libmaxflow-dev, upstream 3.04) on one fixture instance for
// apps/bench's `maxflow` suite, the way shared/fixtures/maxflow/README.md's *Timings* describe:
// build (new Graph, add_node, add_edge per edge line, add_tweights per t line, delete), maxflow()
// alone, and total (build + maxflow + delete), each as the median of S samples of K repetitions
// (K chosen from a trial solve so that a sample lasts at least MIN_MS); with an updates file, the
// time per round of a fresh build + maxflow and of add_tweights + mark_node + maxflow(true).
//
//   g++ -O3 -DNDEBUG -I/usr/include/maxflow-3.0 maxflow-driver.cpp -lmaxflow -o maxflow-driver
//   maxflow-driver [--type double|int] [--samples S] [--min-ms MIN_MS] graph.txt [updates.txt]
//
// Prints one JSON object on stdout. Exit status 2 on bad arguments or unreadable input.
#include <maxflow.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using Clock = std::chrono::steady_clock;

struct Instance {
  int n = 0, m = 0;
  std::vector<int> eu, ev, tn;
  std::vector<double> ec, er, ts, tt;
};

struct Round {
  std::vector<int> node;
  std::vector<double> src, snk;
};

[[noreturn]] static void die(const std::string& message) {
  std::fprintf(stderr, "maxflow-driver: %s\n", message.c_str());
  std::exit(2);
}

static Instance readGraph(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) die(std::string("cannot open ") + path);
  Instance g;
  if (std::fscanf(f, "%d %d", &g.n, &g.m) != 2) die(std::string(path) + ": bad header");
  g.eu.resize(g.m);
  g.ev.resize(g.m);
  g.ec.resize(g.m);
  g.er.resize(g.m);
  for (int e = 0; e < g.m; e++) {
    if (std::fscanf(f, "%d %d %lf %lf", &g.eu[e], &g.ev[e], &g.ec[e], &g.er[e]) != 4)
      die(std::string(path) + ": bad edge line");
  }
  char t[2];
  int i;
  double s, k;
  while (std::fscanf(f, "%1s %d %lf %lf", t, &i, &s, &k) == 4) {
    g.tn.push_back(i);
    g.ts.push_back(s);
    g.tt.push_back(k);
  }
  std::fclose(f);
  return g;
}

static std::vector<Round> readUpdates(const char* path) {
  FILE* f = std::fopen(path, "r");
  if (!f) die(std::string("cannot open ") + path);
  int rounds;
  if (std::fscanf(f, "%d", &rounds) != 1) die(std::string(path) + ": bad header");
  std::vector<Round> out(rounds);
  for (int r = 0; r < rounds; r++) {
    int label, k;
    if (std::fscanf(f, "%d %d", &label, &k) != 2) die(std::string(path) + ": bad round header");
    for (int q = 0; q < k; q++) {
      char t[2];
      int i;
      double s, c;
      if (std::fscanf(f, "%1s %d %lf %lf", t, &i, &s, &c) != 4)
        die(std::string(path) + ": bad update line");
      out[r].node.push_back(i);
      out[r].src.push_back(s);
      out[r].snk.push_back(c);
    }
  }
  std::fclose(f);
  return out;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

static double msSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

static volatile double sink_;  // keeps results alive

template <typename T>
static void report(const Instance& g, const std::vector<Round>& rounds, int samples, double minMs,
                   const char* type) {
  using G = maxflow::Graph<T, T, T>;
  auto build = [&](const double* src, const double* snk) {
    G* graph = new G(g.n, g.m);
    graph->add_node(g.n);
    for (int e = 0; e < g.m; e++) graph->add_edge(g.eu[e], g.ev[e], (T)g.ec[e], (T)g.er[e]);
    if (src == nullptr) {
      for (size_t k = 0; k < g.tn.size(); k++) graph->add_tweights(g.tn[k], (T)g.ts[k], (T)g.tt[k]);
    } else {
      for (int i = 0; i < g.n; i++)
        if (src[i] != 0 || snk[i] != 0) graph->add_tweights(i, (T)src[i], (T)snk[i]);
    }
    return graph;
  };

  // Trial solve: the flow and K.
  auto t0 = Clock::now();
  G* trial = build(nullptr, nullptr);
  double flow = (double)trial->maxflow();
  delete trial;
  double trialMs = msSince(t0);
  long reps = std::max(1L, (long)std::ceil(minMs / std::max(trialMs, 1e-6)));

  std::vector<double> buildS, maxflowS, totalS;
  for (int s = 0; s < samples; s++) {
    t0 = Clock::now();
    for (long r = 0; r < reps; r++) {
      G* graph = build(nullptr, nullptr);
      delete graph;
    }
    buildS.push_back(msSince(t0) / reps);

    double inside = 0;
    for (long r = 0; r < reps; r++) {
      G* graph = build(nullptr, nullptr);
      auto a = Clock::now();
      sink_ = (double)graph->maxflow();
      inside += msSince(a);
      delete graph;
    }
    maxflowS.push_back(inside / reps);

    t0 = Clock::now();
    for (long r = 0; r < reps; r++) {
      G* graph = build(nullptr, nullptr);
      sink_ = (double)graph->maxflow();
      delete graph;
    }
    totalS.push_back(msSince(t0) / reps);
  }

  std::printf("{\"type\":\"%s\",\"n\":%d,\"m\":%d,\"flow\":%.17g,\"reps\":%ld,", type, g.n, g.m,
              flow, reps);
  std::printf("\"build_ms\":%.9g,\"maxflow_ms\":%.9g,\"total_ms\":%.9g", median(buildS),
              median(maxflowS), median(totalS));

  if (!rounds.empty()) {
    const size_t R = rounds.size();
    // Per-round terminal capacities (round 0 = the file).
    std::vector<std::vector<double>> src(R + 1, std::vector<double>(g.n, 0.0));
    std::vector<std::vector<double>> snk(R + 1, std::vector<double>(g.n, 0.0));
    for (size_t k = 0; k < g.tn.size(); k++) {
      src[0][g.tn[k]] += g.ts[k];
      snk[0][g.tn[k]] += g.tt[k];
    }
    for (size_t r = 0; r < R; r++) {
      src[r + 1] = src[r];
      snk[r + 1] = snk[r];
      for (size_t q = 0; q < rounds[r].node.size(); q++) {
        src[r + 1][rounds[r].node[q]] = rounds[r].src[q];
        snk[r + 1][rounds[r].node[q]] = rounds[r].snk[q];
      }
    }
    std::vector<double> freshFlows(R), reuseFlows(R);
    auto freshPass = [&](bool record) {
      for (size_t r = 0; r < R; r++) {
        G* graph = build(src[r + 1].data(), snk[r + 1].data());
        double f = (double)graph->maxflow();
        if (record) freshFlows[r] = f;
        delete graph;
      }
    };
    // One reuse pass: the base graph is built and solved untimed; returns the rounds' time.
    auto reusePass = [&](bool record) {
      G* graph = build(nullptr, nullptr);
      graph->maxflow();
      std::vector<double> curS = src[0], curT = snk[0];
      auto a = Clock::now();
      for (size_t r = 0; r < R; r++) {
        const Round& rd = rounds[r];
        for (size_t q = 0; q < rd.node.size(); q++) {
          int i = rd.node[q];
          graph->add_tweights(i, (T)(rd.src[q] - curS[i]), (T)(rd.snk[q] - curT[i]));
          curS[i] = rd.src[q];
          curT[i] = rd.snk[q];
          graph->mark_node(i);
        }
        double f = (double)graph->maxflow(true);
        if (record) reuseFlows[r] = f;
      }
      double ms = msSince(a);
      delete graph;
      return ms;
    };
    t0 = Clock::now();
    freshPass(true);
    double freshTrial = msSince(t0);
    double reuseTrial = reusePass(true);
    long freshReps = std::max(1L, (long)std::ceil(minMs / std::max(freshTrial, 1e-6)));
    long reuseReps = std::max(1L, (long)std::ceil(minMs / std::max(reuseTrial, 1e-6)));
    std::vector<double> freshS, reuseS;
    for (int s = 0; s < samples; s++) {
      t0 = Clock::now();
      for (long r = 0; r < freshReps; r++) freshPass(false);
      freshS.push_back(msSince(t0) / freshReps / R);
      double ms = 0;
      for (long r = 0; r < reuseReps; r++) ms += reusePass(false);
      reuseS.push_back(ms / reuseReps / R);
    }
    std::printf(",\"update_round_ms_fresh\":%.9g,\"update_round_ms_reuse\":%.9g",
                median(freshS), median(reuseS));
    std::printf(",\"update_flows_fresh\":[");
    for (size_t r = 0; r < R; r++) std::printf("%s%.17g", r ? "," : "", freshFlows[r]);
    std::printf("],\"update_flows_reuse\":[");
    for (size_t r = 0; r < R; r++) std::printf("%s%.17g", r ? "," : "", reuseFlows[r]);
    std::printf("]");
  }
  std::printf("}\n");
}

int main(int argc, char** argv) {
  std::string type = "double";
  int samples = 5;
  double minMs = 50;
  std::vector<const char*> files;
  for (int a = 1; a < argc; a++) {
    if (!std::strcmp(argv[a], "--type") && a + 1 < argc) type = argv[++a];
    else if (!std::strcmp(argv[a], "--samples") && a + 1 < argc) samples = std::atoi(argv[++a]);
    else if (!std::strcmp(argv[a], "--min-ms") && a + 1 < argc) minMs = std::atof(argv[++a]);
    else if (argv[a][0] == '-') die(std::string("unknown option ") + argv[a]);
    else files.push_back(argv[a]);
  }
  if (files.empty() || files.size() > 2 || samples < 1 || !(minMs >= 0) ||
      (type != "double" && type != "int"))
    die("usage: maxflow-driver [--type double|int] [--samples S] [--min-ms MS] graph.txt [updates.txt]");
  Instance g = readGraph(files[0]);
  std::vector<Round> rounds;
  if (files.size() == 2) rounds = readUpdates(files[1]);
  if (type == "int") report<int>(g, rounds, samples, minMs, "int");
  else report<double>(g, rounds, samples, minMs, "double");
  return 0;
}
