// redist-bench: times redist against pdgemr2d, MPI_Alltoallv/w, FFTW's transpose, memcpy and the naive method on a
// table of cases, verifies every method element by element, and writes one CSV row per
// (case, method). `redist-bench --list`; `redist-bench --all --reps 10 --csv results.csv`.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>
#include <redist/redist.hpp>

#include "harness.hpp"
#include "methods.hpp"
#include "methods_nd.hpp"
#include "transpose.hpp"

namespace mpi = boost::mpi;
using redist::index_t;
using namespace redist::bench;

namespace {

/// One benchmark case: a source and a destination layout of n doubles. `run` fills the source
/// with f(global index) and measures the methods that apply.
/// The sizes of the cases: n elements for 1-D, matrix × matrix for 2-D, cube³ for 3-D.
struct Sizes {
  index_t n = index_t{1} << 24;
  index_t matrix = 8192;
  index_t cube = 512;
};

struct Case {
  std::string name;
  std::string description;
  std::function<std::vector<std::string>()> method_names;
  std::function<std::vector<Row>(Harness&, const Sizes&, const BlacsGrids&, BlacsContexts&)> run;
};

/// A 1-D case: make_src(n, P) -> the source distribution, make_dst(n, P) -> the destination's.
template <class MakeSrc, class MakeDst>
Case case_1d(std::string name, std::string description, MakeSrc make_src, MakeDst make_dst) {
  using DS = std::invoke_result_t<MakeSrc, index_t, int>;
  using DD = std::invoke_result_t<MakeDst, index_t, int>;
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] {
    std::vector<std::string> names;
    for (const MethodEntry& e : methods_1d<double, DS, DD>(nullptr)) names.push_back(e.name);
    return names;
  };
  c.run = [name, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids& grids, BlacsContexts&) {
    const index_t n = sizes.n;
    const int nprocs = h.comm().size();
    redist::DistArray<double, DS> a(h.comm(), n, make_src(n, nprocs));
    for (index_t l = 0; l < a.local_size(); ++l) a.local()[l] = value_of(a.global_index(l));
    const Layouts1d<double, DS, DD> layouts{&a, make_dst(n, nprocs), &grids};
    return h.measure(name, n, methods_1d(&layouts));
  };
  return c;
}

/// A grid shape for P processes: the process count split as rows × columns.
using Shape = std::array<int, 2>;
/// The most square shape r × c = P with r <= c (2 × 2 for 4 processes).
Shape square(int p) {
  int r = 1;
  for (int i = 1; i * i <= p; ++i)
    if (p % i == 0) r = i;
  return {r, p / r};
}

/// An N-D case: arrays of extents(sizes) with the layouts make_src(P) and make_dst(P), each a
/// tuple (dist, grid) of Dist<...> and Grid.
template <class DS, class DD, class Extents, class MakeSrc, class MakeDst>
Case case_nd(std::string name, std::string description, Extents extents, MakeSrc make_src, MakeDst make_dst) {
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] {
    std::vector<std::string> names;
    for (const MethodEntry& e : methods_nd<double, DS, DD>(nullptr)) names.push_back(e.name);
    return names;
  };
  c.run = [name, extents, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids& grids,
                                              BlacsContexts& contexts) {
    const int nprocs = h.comm().size();
    const auto ext = extents(sizes);
    const auto [ds, gs] = make_src(nprocs);
    redist::DistArray<double, DS> a(h.comm(), ext, ds, gs);
    for_each_local_nd(a, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(a.global_index(l), ext)); });
    const LayoutsNd<double, DS, DD> layouts{&a, [&h, ext, make_dst, nprocs] {
                                              const auto [dd, gd] = make_dst(nprocs);
                                              return redist::DistArray<double, DD>(h.comm(), ext, dd, gd);
                                            },
                                            &contexts, &grids};
    index_t elements = 1;
    for (index_t e : ext) elements *= e;
    return h.measure(name, elements, methods_nd(&layouts));
  };
  return c;
}

/// A transposed case: b = transpose(a), a of extents(sizes) and b of the swapped extents, with the
/// layouts make_src(P) and make_dst(P), each a tuple (dist, grid, storage). a is filled so that
/// transpose(a) holds f(global index), which the methods' checks then find in b.
template <class DS, class DD, class Extents, class MakeSrc, class MakeDst>
Case case_transpose(std::string name, std::string description, Extents extents, MakeSrc make_src, MakeDst make_dst) {
  Case c{name, std::move(description), {}, {}};
  c.method_names = [] {
    std::vector<std::string> names;
    for (const MethodEntry& e : methods_transpose<double, DS, DD>(nullptr)) names.push_back(e.name);
    return names;
  };
  c.run = [name, extents, make_src, make_dst](Harness& h, const Sizes& sizes, const BlacsGrids&, BlacsContexts&) {
    const int nprocs = h.comm().size();
    const auto ext = extents(sizes);
    const auto [ds, gs, ss] = make_src(nprocs);
    redist::DistArray<double, DS> a(h.comm(), ext, ds, gs, {}, ss);
    const TransposedArray<redist::DistArray<double, DS>> at(a);
    for_each_local_nd(at, [&](const auto& l, index_t off) { a.local()[off] = value_of(global_id(at.global_index(l), at.extents())); });
    const LayoutsTransposed<double, DS, DD> layouts{&at, [&h, ext = at.extents(), make_dst, nprocs] {
                                                     const auto [dd, gd, sd] = make_dst(nprocs);
                                                     return redist::DistArray<double, DD>(h.comm(), ext, dd, gd, {}, sd);
                                                   }};
    index_t elements = 1;
    for (index_t e : ext) elements *= e;
    return h.measure(name, elements, methods_transpose(&layouts));
  };
  return c;
}

template <class D>
auto fixed() {
  return [](index_t, int) { return D{}; };
}

/// nprocs part sizes that sum to n, each within ±90 % of n/P: deviations drawn from a fixed
/// seed (mt19937_64, the same on every rank and machine), centred, scaled into [-0.9, 0.9].
std::vector<index_t> uneven_sizes(index_t n, int nprocs, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<double> d(static_cast<std::size_t>(nprocs));
  double mean = 0;
  for (double& x : d) {
    x = 2.0 * static_cast<double>(gen() >> 11) * 0x1.0p-53 - 1.0;
    mean += x / nprocs;
  }
  double widest = 0;
  for (double& x : d) widest = std::max(widest, std::abs(x -= mean));
  const double scale = widest > 0.9 ? 0.9 / widest : 1.0;
  std::vector<index_t> sizes(d.size());
  index_t given = 0;
  for (std::size_t p = 0; p + 1 < d.size(); ++p) {
    sizes[p] = static_cast<index_t>(std::floor(static_cast<double>(n) / nprocs * (1.0 + scale * d[p])));
    given += sizes[p];
  }
  sizes.back() = n - given;
  return sizes;
}

template <std::uint64_t Seed>
auto uneven() {
  return [](index_t n, int nprocs) { return redist::GenBlock(uneven_sizes(n, nprocs, Seed)); };
}

using redist::Block;
using redist::Collapsed;
using redist::Cyclic;
using redist::Dist;
using redist::Grid;
using redist::Storage;

std::array<index_t, 2> matrix(const Sizes& s) { return {s.matrix, s.matrix}; }
std::array<index_t, 3> cube(const Sizes& s) { return {s.cube, s.cube, s.cube}; }

/// The cases (1-D, meant for 4 ranks). Append a line to add one.
std::vector<Case> make_cases() {
  return {
      case_1d("cyc8_cyc5", "Cyclic<8> -> Cyclic<5>", fixed<Cyclic<8>>(), fixed<Cyclic<5>>()),
      case_1d("cyc100_cyc3", "Cyclic<100> -> Cyclic<3>", fixed<Cyclic<100>>(), fixed<Cyclic<3>>()),
      case_1d("cyc4_cyc28", "Cyclic<4> -> Cyclic<28> (K = 7)", fixed<Cyclic<4>>(), fixed<Cyclic<28>>()),
      case_1d("cyc4_cyc124", "Cyclic<4> -> Cyclic<124> (K = 31)", fixed<Cyclic<4>>(), fixed<Cyclic<124>>()),
      case_1d("block_cyc1", "Block -> Cyclic<1>", fixed<Block>(), fixed<Cyclic<1>>()),
      case_1d("genblock_uneven", "GenBlock (uneven, seed 1) -> GenBlock (uneven, seed 2)", uneven<1>(), uneven<2>()),
      case_nd<Dist<Cyclic<64>, Cyclic<64>>, Dist<Cyclic<100>, Cyclic<100>>>(
          "mat_b64_b100", "matrix, 2x2 grid 64x64 blocks -> 4x1 grid 100x100 blocks", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Cyclic<64>>{}, Grid{s[0], s[1]}}; },
          [](int p) { return std::tuple{Dist<Cyclic<100>, Cyclic<100>>{}, Grid{p, 1}}; }),
      case_nd<Dist<Cyclic<32>, Cyclic<32>>, Dist<Cyclic<128>, Cyclic<128>>>(
          "mat_b32_b128", "matrix, 2x2 grid 32x32 blocks -> 2x2 grid 128x128 blocks", matrix,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<32>, Cyclic<32>>{}, Grid{s[0], s[1]}}; },
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<128>, Cyclic<128>>{}, Grid{s[0], s[1]}}; }),
      case_nd<Dist<Block, Collapsed>, Dist<Collapsed, Block>>(
          "corner_turn", "matrix, row blocks on 4x1 -> column blocks on 1x4", matrix,
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}}; },
          [](int p) { return std::tuple{Dist<Collapsed, Block>{}, Grid{1, p}}; }),
      case_transpose<Dist<Block, Collapsed>, Dist<Block, Collapsed>>(
          "transpose_rows", "matrix, b = transpose(a), row blocks on 4x1, row-major local storage (FFTW's layout)", matrix,
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}, Storage{redist::row_major}}; },
          [](int p) { return std::tuple{Dist<Block, Collapsed>{}, Grid{p, 1}, Storage{redist::row_major}}; }),
      case_nd<Dist<Cyclic<1>, Cyclic<8>>, Dist<Cyclic<1>, Cyclic<5>>>(
          "row_c8_c5", "1 x n row vector, CYCLIC(8) -> CYCLIC(5) columns on 1xP (the 1-D pair through the N-D engine)",
          [](const Sizes& s) { return std::array<index_t, 2>{1, s.n}; },
          [](int p) { return std::tuple{Dist<Cyclic<1>, Cyclic<8>>{}, Grid{1, p}}; },
          [](int p) { return std::tuple{Dist<Cyclic<1>, Cyclic<5>>{}, Grid{1, p}}; }),
      case_nd<Dist<Cyclic<64>, Collapsed, Block>, Dist<Block, Collapsed, Cyclic<8>>>(
          "cube_3d", "3-D cube, (CYCLIC(64), *, BLOCK) on 2x1x2 -> (BLOCK, *, CYCLIC(8)) on 4x1x1", cube,
          [](int p) { const Shape s = square(p); return std::tuple{Dist<Cyclic<64>, Collapsed, Block>{}, Grid{s[0], 1, s[1]}}; },
          [](int p) { return std::tuple{Dist<Block, Collapsed, Cyclic<8>>{}, Grid{p, 1, 1}}; }),
  };
}

struct Options {
  bool list = false;
  bool all = false;
  std::vector<std::string> cases;
  std::vector<std::string> methods;
  int reps = 10;
  Sizes sizes;
  std::string csv;
};

constexpr const char* usage =
    "usage: redist-bench (--list | --all | --case NAME [--case NAME ...]) [--methods M1,M2,...]\n"
    "                    [--reps R] [--n N] [--matrix M] [--cube C] [--csv FILE]\n"
    "  --list          print the cases and their methods\n"
    "  --all           run every case; --case NAME runs one (repeatable)\n"
    "  --methods       comma-separated methods (default: every one that applies)\n"
    "  --reps R        timed repetitions after one warm-up (default 10)\n"
    "  --n N           elements of the 1-D cases (default 2^24 doubles)\n"
    "  --matrix M      extent of the 2-D cases, M x M (default 8192)\n"
    "  --cube C        extent of the 3-D case, C x C x C (default 512)\n"
    "  --csv FILE      write the rows to FILE (default: standard output)\n";

/// The options, or a message saying what is wrong with them.
std::string parse(int argc, char* argv[], Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::string& out) {
      if (i + 1 >= argc) return false;
      out = argv[++i];
      return true;
    };
    std::string v;
    if (arg == "--list") {
      o.list = true;
    } else if (arg == "--all") {
      o.all = true;
    } else if (arg == "--case") {
      if (!value(v)) return "--case needs a name";
      o.cases.push_back(v);
    } else if (arg == "--methods") {
      if (!value(v)) return "--methods needs a list";
      std::stringstream ss(v);
      for (std::string m; std::getline(ss, m, ',');)
        if (!m.empty()) o.methods.push_back(m);
    } else if (arg == "--reps") {
      if (!value(v) || (o.reps = std::atoi(v.c_str())) < 1) return "--reps needs a number >= 1";
    } else if (arg == "--n") {
      if (!value(v) || (o.sizes.n = std::atoll(v.c_str())) < 1) return "--n needs a number >= 1";
    } else if (arg == "--matrix") {
      if (!value(v) || (o.sizes.matrix = std::atoll(v.c_str())) < 1) return "--matrix needs a number >= 1";
    } else if (arg == "--cube") {
      if (!value(v) || (o.sizes.cube = std::atoll(v.c_str())) < 1) return "--cube needs a number >= 1";
    } else if (arg == "--csv") {
      if (!value(v)) return "--csv needs a file name";
      o.csv = v;
    } else {
      return "unknown argument " + arg;
    }
  }
  if (!o.list && !o.all && o.cases.empty()) return "choose --list, --all or --case NAME";
  return {};
}

int run(const mpi::communicator& world, const Options& o) {
  const bool root = world.rank() == 0;
  const std::vector<Case> cases = make_cases();
  std::set<std::string> known_methods;
  for (const Case& c : cases)
    for (const std::string& m : c.method_names()) known_methods.insert(m);

  if (o.list) {
    if (root)
      for (const Case& c : cases) {
        std::printf("%-18s %s\n%-18s methods:", c.name.c_str(), c.description.c_str(), "");
        for (const std::string& m : c.method_names()) std::printf(" %s", m.c_str());
        std::printf("\n");
      }
    return EXIT_SUCCESS;
  }
  for (const std::string& m : o.methods)
    if (!known_methods.contains(m)) {
      if (root) std::fprintf(stderr, "redist-bench: unknown method %s\n", m.c_str());
      return 2;
    }
  std::vector<const Case*> selected;
  for (const Case& c : cases)
    if (o.all || std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end()) selected.push_back(&c);
  for (const std::string& name : o.cases)
    if (std::none_of(cases.begin(), cases.end(), [&](const Case& c) { return c.name == name; })) {
      if (root) std::fprintf(stderr, "redist-bench: unknown case %s (see --list)\n", name.c_str());
      return 2;
    }

  std::FILE* csv = stdout;
  if (root && !o.csv.empty() && (csv = std::fopen(o.csv.c_str(), "w")) == nullptr) {
    std::fprintf(stderr, "redist-bench: cannot write %s\n", o.csv.c_str());
    csv = stdout;
  }
  if (root) {
    std::fprintf(csv, "%s\n", csv_header);
    std::fprintf(stderr,
                 "redist-bench: n = %lld (1-D), %lld^2 (2-D), %lld^3 (3-D) doubles on %d processes, %d repetitions "
                 "after one warm-up\n",
                 static_cast<long long>(o.sizes.n), static_cast<long long>(o.sizes.matrix),
                 static_cast<long long>(o.sizes.cube), world.size(), o.reps);
  }

  const BlacsGrids grids;
  BlacsContexts contexts;
  Harness harness(world, o.reps, o.methods);
  bool all_ok = true;
  for (const Case* c : selected) {
    for (const Row& r : c->run(harness, o.sizes, grids, contexts)) {
      all_ok = all_ok && r.ok;
      if (!root) continue;
      write_csv_row(csv, r);
      std::fflush(csv);
      std::fprintf(stderr, "%-16s %-20s median %10.3f ms  [%9.3f, %9.3f]  plan %8.3f ms  %4lld msgs  %s\n",
                   r.case_name.c_str(), r.method.c_str(), r.median_ms, r.min_ms, r.max_ms, r.plan_ms,
                   static_cast<long long>(r.messages), r.ok ? "ok" : "FAIL");
    }
  }
  if (root && csv != stdout) std::fclose(csv);
  if (root && !all_ok) std::fprintf(stderr, "redist-bench: some checks failed\n");
  return all_ok ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

int main(int argc, char* argv[]) {
  mpi::environment env(argc, argv);
  mpi::communicator world;
  Options options;
  if (const std::string error = parse(argc, argv, options); !error.empty()) {
    if (world.rank() == 0) std::fprintf(stderr, "redist-bench: %s\n%s", error.c_str(), usage);
    return 2;
  }
  try {
    return run(world, options);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "redist-bench (rank %d): %s\n", world.rank(), e.what());
    env.abort(3);
  }
  return 3;
}
