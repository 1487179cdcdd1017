// The soak's N-D cases and pool entries of rank 1 (one translation unit per rank, to compile in parallel).
#include "soak_nd.hpp"

namespace soak {
SOAK_INSTANTIATE_ND(1)
}  // namespace soak
