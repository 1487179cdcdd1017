// The soak's N-D cases and pool entries of rank 5 (one translation unit per rank, to compile in parallel).
#include "soak_nd.hpp"

namespace soak {
SOAK_INSTANTIATE_ND(5)
}  // namespace soak
