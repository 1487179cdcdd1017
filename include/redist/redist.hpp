/// @file Umbrella header: includes every public header of redist.
#pragma once

// The MPI environment and communicator, so that `#include <redist/redist.hpp>` is all a program needs.
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include <redist/config.hpp>
#include <redist/dist/block.hpp>
#include <redist/dist/block_cyclic.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/dist.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/grid.hpp>
#include <redist/dist/ldd.hpp>
#include <redist/index/basic_cycle.hpp>
#include <redist/index/circulant.hpp>
#include <redist/index/gen_block.hpp>
#include <redist/index/grid.hpp>
#include <redist/index/intersect.hpp>
#include <redist/index/run.hpp>
#include <redist/index/section.hpp>
#include <redist/schedule/schedule.hpp>
#include <redist/schedule/basic_cycle.hpp>
#include <redist/schedule/gen_block.hpp>
#include <redist/schedule/multiphase.hpp>
#include <redist/schedule/circulant.hpp>
#include <redist/schedule/cost.hpp>
#include <redist/schedule/transfer.hpp>
#include <redist/schedule/caterpillar.hpp>
#include <redist/schedule/relative_group.hpp>
#include <redist/plan/plan.hpp>
#include <redist/plan/basic_cycle.hpp>
#include <redist/plan/circulant.hpp>
#include <redist/plan/gen_block.hpp>
#include <redist/plan/grid.hpp>
#include <redist/plan/scheduled.hpp>
#include <redist/plan/transfers.hpp>
#include <redist/runtime/pack.hpp>
#include <redist/runtime/pack_cycles.hpp>
#include <redist/runtime/scratch.hpp>
#include <redist/runtime/exchange.hpp>
#include <redist/runtime/exchange_cycles.hpp>
#include <redist/runtime/exchange_circulant.hpp>
#include <redist/runtime/calibrate.hpp>
#include <redist/runtime/calibrate_gdm.hpp>
#include <redist/runtime/time_plans.hpp>
#include <redist/array/consistency.hpp>
#include <redist/array/options.hpp>
#include <redist/array/plan_cache.hpp>
#include <redist/array/multiphase.hpp>
#include <redist/array/dist_array.hpp>
#include <redist/array/dist_array_nd.hpp>
#include <redist/array/redistribute.hpp>
// The ScaLAPACK bridge; redist/interop/blacs.hpp (which calls BLACS) is opt-in.
#include <redist/interop/scalapack.hpp>
