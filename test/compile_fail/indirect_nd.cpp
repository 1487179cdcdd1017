// expected-error: redist::Indirect is a 1-D layout: declare DistArray<T, Indirect<...>>, not a dimension of Dist<D...>
#include <redist/redist.hpp>

using Rows = redist::Dist<redist::Indirect<>, redist::Block>;
Rows rows;
