/// @file Defines tune, the first run of a TimedCyclicPlan (schedule::automatic on a Cyclic pair): the GDM model's candidate schedules timed on the machine, the fastest kept (collective); and its execute.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include <boost/mpi/communicator.hpp>

#include <redist/plan/automatic.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_circulant.hpp>
#include <redist/runtime/time_plans.hpp>

namespace redist::runtime {

/// Least time of a stage's rounds when tuning (time_plans' min_seconds).
inline constexpr double tune_min_seconds = 0.01;

/// The first run of tp (collective, once per plan; a repeat does nothing): the candidates of
/// automatic_candidates whose workspace fits `budget` elements on every rank (BCC always does, in
/// rounds of a piece agreed by all ranks) are timed by time_plans, `reps` rounds and more, and
/// tp.plan becomes the fastest. Every rank sees the same times, so every rank switches alike.
/// The workspace is then released, so that it is sized for the plan that runs. reps <= 0: the
/// model's choice stays, untimed.
template <class From, class To, class T>
void tune(TimedCyclicPlan<From, To>& tp, const boost::mpi::communicator& comm, std::span<const T> src,
          std::span<T> dst, Workspace& ws, index_t budget, int reps, std::size_t chunk_bytes) {
  if (tp.tuned) return;
  tp.tuned = true;
  if (reps <= 0) return;
  constexpr std::size_t most = 32;
  std::vector<schedule::CyclicChoice> choices = automatic_candidates(
      tp.from, tp.to, schedule::modeled_t{schedule::default_machine, static_cast<index_t>(sizeof(T))});
  if (choices.size() < 2) return;
  // BCC, always among the candidates, stays in the list when it is cut to the first `most`.
  if (choices.size() > most) {
    const auto bcc = std::find_if(choices.begin(), choices.end(), [](const schedule::CyclicChoice& c) {
      return c.kind == schedule::CyclicChoice::method::bcc;
    });
    if (bcc >= choices.begin() + static_cast<std::ptrdiff_t>(most))
      std::rotate(choices.begin() + static_cast<std::ptrdiff_t>(most) - 1, bcc, bcc + 1);
    choices.resize(most);
  }
  std::vector<CirculantPlan> plans;
  plans.reserve(choices.size());
  for (const schedule::CyclicChoice& c : choices) plans.push_back(with_choice(tp.plan, tp.from, tp.to, c));
  // One all-reduce (minimum): BCC's piece for the budget, and per candidate whether it fits.
  std::vector<std::uint64_t> mine(choices.size() + 1), all(choices.size() + 1);
  const index_t bcc_piece = piece_limit(tp.plan.bcc, budget);
  constexpr auto no_limit = static_cast<std::uint64_t>(index_t{-1} >> 1);
  mine[0] = bcc_piece == 0 ? no_limit : static_cast<std::uint64_t>(bcc_piece);
  for (std::size_t i = 0; i < plans.size(); ++i)
    mine[i + 1] = plans[i].kind == CirculantPlan::method::bcc || plans[i].scratch_elements() <= budget ? 1 : 0;
  detail::check(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_UINT64_T, MPI_MIN,
                              static_cast<MPI_Comm>(comm)),
                "MPI_Allreduce");
  std::vector<CirculantPlan> viable;
  std::vector<schedule::CyclicChoice> viable_choices;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    if (all[i + 1] == 0) continue;
    // A circulant candidate that fits everywhere runs its phases (piece 0); BCC its rounds.
    plans[i].set_piece(plans[i].kind == CirculantPlan::method::bcc && all[0] != no_limit ? static_cast<index_t>(all[0]) : 0);
    viable.push_back(std::move(plans[i]));
    viable_choices.push_back(choices[i]);
  }
  if (viable.size() >= 2) {
    // Two stages: every candidate for `reps` rounds; then those within 20 % of the fastest
    // median for twice as many more, so that the close ones get the most samples.
    const std::span<const CirculantPlan> cands(viable);
    std::vector<std::vector<double>> samples;
    std::vector<std::size_t> which(viable.size());
    for (std::size_t i = 0; i < which.size(); ++i) which[i] = i;
    auto fastest = [&] {
      std::size_t best = which.front();
      for (std::size_t i : which) {
        viable_choices[i].measured = median_of(samples[i]);
        if (viable_choices[i].measured < viable_choices[best].measured) best = i;
      }
      return best;
    };
    time_plans(cands, std::span<const std::size_t>(which), comm, src, dst, ws, chunk_bytes, reps, tune_min_seconds,
               samples);
    const double lead = viable_choices[fastest()].measured;
    std::erase_if(which, [&](std::size_t i) { return viable_choices[i].measured > 1.2 * lead; });
    if (which.size() >= 2)
      time_plans(cands, std::span<const std::size_t>(which), comm, src, dst, ws, chunk_bytes, 2 * reps,
                 tune_min_seconds, samples);
    const std::size_t best = fastest();
    viable[best].choice.measured = viable_choices[best].measured;
    tp.timed = std::move(viable_choices);
    tp.plan = std::move(viable[best]);
  } else {
    tp.plan = std::move(viable.front());
  }
  ws = Workspace{};
}

/// Runs a TimedCyclicPlan: its current plan (the model's choice, or after tune the fastest).
template <class From, class To, class T>
void execute(const TimedCyclicPlan<From, To>& tp, const boost::mpi::communicator& comm, std::span<const T> src,
             std::span<T> dst, Workspace& ws, std::size_t chunk_bytes = max_chunk_bytes) {
  execute(tp.plan, comm, src, dst, ws, chunk_bytes);
}

}  // namespace redist::runtime
