/// @file Defines AnyDist, a distribution chosen at run time among Block, Cyclic(k), GenBlock, Collapsed, Replicated and Partial<> (partial sums) (the C interface's, and any code that reads its layouts from input).
#pragma once

#include <string>
#include <utility>
#include <variant>

#include <redist/dist/block.hpp>
#include <redist/dist/collapsed.hpp>
#include <redist/dist/cyclic.hpp>
#include <redist/dist/distribution.hpp>
#include <redist/dist/gen_block.hpp>
#include <redist/dist/partial.hpp>
#include <redist/dist/replicated.hpp>

namespace redist {

/// One of BLOCK, CYCLIC(k), GEN_BLOCK(sizes), collapsed, replicated and partial sums, chosen at run time: what a layout read
/// from input, from another language (redist/c.h) or from a file holds per dimension. Its mapping
/// forwards each question to the chosen distribution's mapping, so that every element belongs to
/// the same process as with the static type. The planner looks through it (mapping::get_if): a
/// 1-D layout of CYCLIC(k) or GEN_BLOCK chosen at run time gets its typed equivalent's schedules
/// (basic-cycle, circulant, TPDR), decided at plan time. `Dist<AnyDist, AnyDist>` is a 2-D layout of any two.
class AnyDist {
 public:
  using distribution_concept = distribution_tag;
  using variant_type = std::variant<Block, Cyclic<>, GenBlock, Collapsed, Replicated, Partial<>>;

  AnyDist() : d_{Block{}} {}
  AnyDist(Block d) : d_{d} {}
  AnyDist(Cyclic<> d) : d_{d} {}
  AnyDist(GenBlock d) : d_{std::move(d)} {}
  AnyDist(Collapsed d) : d_{d} {}
  AnyDist(Replicated d) : d_{d} {}
  /// Partial sums (Partial<std::plus<>>): a layout's types do not say it, so b = a between layouts
  /// of AnyDist finds it at run time and folds as a typed Partial<> does (Redistribution).
  AnyDist(Partial<> d) : d_{d} {}

  /// The chosen distribution.
  const variant_type& get() const noexcept { return d_; }

  friend bool operator==(const AnyDist&, const AnyDist&) = default;

  class mapping {
   public:
    mapping(const AnyDist& d, index_t n, int nprocs)
        : m_{std::visit([&](const auto& one) -> variant_mapping {
            return typename std::decay_t<decltype(one)>::mapping(one, n, nprocs);
          },
                        d.d_)} {}
    index_t size() const noexcept {
      return std::visit([](const auto& m) { return m.size(); }, m_);
    }
    int nprocs() const noexcept {
      return std::visit([](const auto& m) { return m.nprocs(); }, m_);
    }
    int owner(index_t g) const noexcept {
      return std::visit([g](const auto& m) { return m.owner(g); }, m_);
    }
    index_t local_index(index_t g) const noexcept {
      return std::visit([g](const auto& m) { return m.local_index(g); }, m_);
    }
    index_t global_index(int p, index_t l) const noexcept {
      return std::visit([p, l](const auto& m) { return m.global_index(p, l); }, m_);
    }
    index_t local_size(int p) const noexcept {
      return std::visit([p](const auto& m) { return m.local_size(p); }, m_);
    }
    LddSet ldds(int p) const {
      return std::visit([p](const auto& m) -> LddSet { return m.ldds(p); }, m_);
    }
    /// The mapping of the chosen distribution when it is an M (Cyclic<>::mapping, ...), else
    /// nullptr: the planner looks through an AnyDist to give it its typed equivalent's schedules.
    template <class M>
    const M* get_if() const noexcept {
      return std::get_if<M>(&m_);
    }
    friend bool operator==(const mapping&, const mapping&) = default;

   private:
    using variant_mapping =
        std::variant<Block::mapping, Cyclic<>::mapping, GenBlock::mapping, Collapsed::mapping, Replicated::mapping,
                     Partial<>::mapping>;
    variant_mapping m_;
  };

 private:
  variant_type d_;
};

static_assert(Distribution<AnyDist>);

}  // namespace redist
