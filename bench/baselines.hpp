/// @file Defines the naive element-by-element baseline; the MPI_Alltoallv/w baselines are in alltoall.hpp, ScaLAPACK's pdgemr2d in gemr2d.hpp.
#pragma once

#include <mpi.h>

#include <cstring>
#include <vector>

#include <redist/redist.hpp>

#include "harness.hpp"

namespace redist::bench {

/// Calls f(global index, offset in local()) for every local element of a, 1-D or N-D.
template <class A, class F>
void for_each_element(const A& a, F&& f) {
  if constexpr (requires { a.for_each_element(f); })
    a.for_each_element(f);  // an adapter that selects elements itself (RowsOf in redist_bench.cpp)
  else if constexpr (requires { a.local_extents(); })
    for_each_local_nd(a, [&](const auto& l, index_t off) { f(a.global_index(l), off); });
  else
    for (index_t l = 0; l < a.local_size(); ++l) f(a.global_index(l), l);
}

/// What the naive method sends per element: where it goes in the receiver's local(), and its value.
template <class T>
struct NaiveItem {
  index_t local;
  T value;
};

/// The naive method: the destination of every element computed one by one (owner and local
/// index), (local index, value) pairs exchanged with one MPI_Alltoallv, stored one by one.
/// Collective. What a user writes without a redistribution library. 1-D or N-D, arrays or views.
template <class A, class B>
void naive_redistribute(const A& src, B& dst) {
  using Item = NaiveItem<typename A::value_type>;
  const MPI_Comm comm = static_cast<MPI_Comm>(src.comm());
  const int nprocs = src.comm().size();
  std::vector<int> scount(nprocs, 0), rcount(nprocs), sdisp(nprocs + 1, 0), rdisp(nprocs + 1, 0);
  const auto in = src.local();
  for_each_element(src, [&](const auto& g, index_t) { ++scount[dst.owner(g)]; });
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm);
  for (int p = 0; p < nprocs; ++p) {
    sdisp[p + 1] = sdisp[p] + scount[p];
    rdisp[p + 1] = rdisp[p] + rcount[p];
  }
  std::vector<Item> sbuf(static_cast<std::size_t>(sdisp[nprocs])), rbuf(static_cast<std::size_t>(rdisp[nprocs]));
  std::vector<int> fill(sdisp.begin(), sdisp.end() - 1);
  for_each_element(src, [&](const auto& g, index_t l) { sbuf[fill[dst.owner(g)]++] = Item{dst.local_index(g), in[l]}; });
  auto bytes = [](std::vector<int> v) {
    for (int& x : v) x *= static_cast<int>(sizeof(Item));
    return v;
  };
  const auto sc = bytes(scount), sd = bytes(sdisp), rc = bytes(rcount), rd = bytes(rdisp);
  MPI_Alltoallv(sbuf.data(), sc.data(), sd.data(), MPI_BYTE, rbuf.data(), rc.data(), rd.data(), MPI_BYTE, comm);
  auto out = dst.local();
  for (const Item& it : rbuf) out[it.local] = it.value;
}

}  // namespace redist::bench
