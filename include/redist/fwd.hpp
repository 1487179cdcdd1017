/// @file Declares the public templates and classes of redist, without defining them.
#pragma once

#include <cstddef>
#include <span>

namespace redist {
/// A template argument that is given at run time instead (as std::dynamic_extent in std::span).
inline constexpr std::size_t dynamic = std::dynamic_extent;
struct distribution_tag;
struct Ldd;
class LddSet;
class LddList;
struct Slice;
struct full_extent_t;
template <class OffsetType, class ExtentType, class StrideType>
struct strided_slice;
struct Run;
class Block;
template <std::size_t X>
class Cyclic;
class GenBlock;
class Collapsed;
class Replicated;
template <class Op>
class Partial;
template <class Op>
class Indirect;
struct min_op;
struct max_op;
template <class... D>
class Dist;
template <std::size_t... E>
class Grid;
template <class M, std::size_t K>
class SectionLayout;
template <class R>
struct BasicPlan;
using Plan = BasicPlan<Run>;
template <std::size_t MaxDepth>
struct BasicSection;
using Section = BasicSection<8>;
using GridPlan = BasicPlan<Section>;
struct Message;
template <class From, class To, class Policy>
class Redistribution;
template <std::size_t... E>
struct Extents;
template <class T, class D, class G = void, class X = void>
class DistArray;
template <class T, class D, class G, class X>
class DistView;
template <class T>
class SharedBuffer;
class error;
}  // namespace redist
