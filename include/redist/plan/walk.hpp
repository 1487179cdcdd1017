/// @file Defines Walk: one rank's local array in storage order, piece by piece, each piece tagged with where it sits in its message's packed order — the one-pass pack and unpack of every plan built from layouts (runtime/pack.hpp runs it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <redist/config.hpp>
#include <redist/index/run.hpp>

namespace redist {

/// One family of pieces of one dimension on the walking side (the sender's source, or the
/// receiver's destination), in its band: its pieces are [band.start + c·band.period + phase,
/// + len) of local index for the cycles first <= c < first + count. It is one family of the
/// pair's list of families in this dimension (the plan builder's per-dimension intersection with
/// the peer coordinate `coord`): `prefix` elements of that list come before it, it holds `size`,
/// the list `total`.
struct WalkMember {
  index_t phase = 0;
  index_t len = 0;
  index_t first = 0;
  index_t count = 0;
  index_t prefix = 0;
  index_t size = 0;
  index_t total = 0;
  index_t coord = 0;
  friend bool operator==(const WalkMember&, const WalkMember&) = default;
};

/// Members [first, first + size) of a dimension, sorted by phase, walked cycle by cycle: in cycle
/// c (c < cycles) every member whose cycles include c contributes its piece, in member order,
/// and that is storage order (the builder checks it). Members of a band share its period (or
/// have one piece); bands follow each other.
struct WalkBand {
  index_t start = 0;
  index_t period = 0;
  index_t cycles = 0;
  std::size_t first = 0;
  std::size_t size = 0;
  friend bool operator==(const WalkBand&, const WalkBand&) = default;
};

/// One dimension of a walk: its element stride in the local storage, the weight of its peer
/// coordinate in the walk's slot table, its members (band by band), and the bands.
struct WalkDim {
  index_t stride = 1;
  index_t weight = 1;
  std::vector<WalkMember> members;
  std::vector<WalkBand> bands;
  friend bool operator==(const WalkDim&, const WalkDim&) = default;
};

/// One rank's local array (one side of a plan) in storage order as pieces of the innermost
/// dimension, nested in the outer dimensions' elements, each piece bound to its message and to
/// its place in that message's packed order — the order of the plan's runs or sections, so that
/// packing every message in one walk gives the buffers of packing them one by one (a plan with
/// a walk is packed and unpacked either way; sender and receiver need not agree on which).
///
/// Packed order: a message's sections are the tuples (a_0, ..., a_{N-1}) of the pair's family
/// lists, odometer order with the innermost dimension fastest; within a tuple the innermost
/// dimension's elements go fastest. So the element with family a_k and position e_k in it (per
/// walk dimension k, innermost first) sits at
///   Σ_k prefix_k · Π_{j<k} total_j · Π_{j>k} size_j  +  Σ_k e_k · Π_{j<k} size_j
/// which the walk accumulates from the outermost dimension in: X ← prefix·Z + total·X,
/// Y ← e + size·Y, Z ← size·Z (runtime/pack.hpp).
///
/// Dimensions holding one local element are folded into `fixed` (their slot-table contribution)
/// unless no dimension is left. `slot[Σ coord_k · weight_k]` is the index of the message in the
/// plan's sends (send walk) or recvs (receive walk), or -1 for the local part, a direct message
/// or no message.
struct Walk {
  std::vector<WalkDim> dims;  ///< innermost first
  index_t fixed = 0;
  std::vector<int> slot;
  index_t piece_elements = 0; ///< mean elements per piece of the innermost dimension (rounded up)
  bool valid = false;         ///< false: pack and unpack message by message
  explicit operator bool() const noexcept { return valid; }
  friend bool operator==(const Walk&, const Walk&) = default;
};

namespace detail {
/// One dimension handed to make_walk: the per-peer-coordinate lists of families (runs, whose
/// src side is the walking side when `src_side`), the local extent and element stride there.
struct WalkInput {
  const std::vector<std::vector<Run>>* families = nullptr;
  index_t extent = 0;
  index_t stride = 1;
};

/// A family of pieces of one dimension before banding: pieces [start + m·stride, + len), m < count.
struct WalkFamily {
  WalkMember member;
  index_t start = 0;
  index_t stride = 0;  ///< 0 when count == 1
};

/// Bands the families of one dimension into dim: in order of start, a family joins the open band
/// when it has one piece or the band's period (the first stride seen); its pieces must then fall
/// on the band's cycle grid (which starts at the first repeating family) inside one cycle each. Checks that walking the bands cycle by cycle is
/// storage order and stays in [0, extent), and that the families hold extent elements; returns
/// false otherwise (the plan then packs message by message). The families are disjoint (they are
/// the plan's own intersections), which with those checks makes the walk a partition.
inline bool band_families(std::vector<WalkFamily>& fams, WalkDim& dim, index_t extent) {
  std::stable_sort(fams.begin(), fams.end(), [](const WalkFamily& a, const WalkFamily& b) { return a.start < b.start; });
  dim.members.clear();
  dim.bands.clear();
  index_t covered = 0, end = 0;
  auto close = [&](std::size_t from, std::size_t to, index_t period) {
    if (from == to) return true;
    WalkBand b{fams[from].start, period, 0, dim.members.size(), to - from};
    if (b.start < end) return false;  // after the previous band
    if (period > 0) {
      // Cycles start where the first repeating family does (a piece boundary of every cycle),
      // moved back by whole periods to cover the single pieces before it.
      std::size_t r = from;
      while (fams[r].stride == 0) ++r;
      b.start = fams[r].start - period * ((fams[r].start - fams[from].start + period - 1) / period);
    }
    for (std::size_t i = from; i < to; ++i) {
      WalkMember m = fams[i].member;
      const index_t rel = fams[i].start - b.start;
      m.first = period == 0 ? 0 : rel / period;
      m.phase = rel - m.first * period;
      if (period > 0 && m.phase + m.len > period) return false;  // crosses into the next cycle
      if (period == 0 && m.count != 1) return false;
      b.cycles = std::max(b.cycles, m.first + m.count);
      end = std::max(end, b.start + (m.first + m.count - 1) * period + m.phase + m.len);
      dim.members.push_back(m);
    }
    std::stable_sort(dim.members.begin() + static_cast<std::ptrdiff_t>(b.first), dim.members.end(),
                     [](const WalkMember& x, const WalkMember& y) { return x.phase < y.phase; });
    if (period == 0) {
      // One cycle: the pieces in order, disjoint.
      for (std::size_t j = b.first + 1; j < dim.members.size(); ++j)
        if (dim.members[j].phase < dim.members[j - 1].phase + dim.members[j - 1].len) return false;
    }
    dim.bands.push_back(b);
    return true;
  };
  for (const WalkFamily& f : fams) covered += f.member.size;
  // The open band: families [open, i), its period and a piece boundary of its cycles (origin).
  std::size_t open = 0;
  index_t period = 0, origin = 0;
  auto fits = [&](const WalkFamily& f) {
    const index_t phase = (((f.start - origin) % period) + period) % period;
    return phase + f.member.len <= period;
  };
  auto last_end = [&](std::size_t from, std::size_t to) {  // one past the last piece of families [from, to)
    index_t e = 0;
    for (std::size_t j = from; j < to; ++j)
      e = std::max(e, fams[j].start + (fams[j].member.count - 1) * fams[j].stride + fams[j].member.len);
    return e;
  };
  for (std::size_t i = 0; i < fams.size(); ++i) {
    const WalkFamily& f = fams[i];
    bool joins = true;
    if (period == 0 && f.stride > 0) {
      // The first repeating family sets the grid; the single pieces before it must fit it.
      period = f.stride;
      origin = f.start;
      for (std::size_t j = open; j < i && joins; ++j) joins = fits(fams[j]);
      if (!joins) period = 0;
    } else if (period > 0) {
      joins = (f.stride == 0 || f.stride == period) && fits(f);
    }
    if (joins) continue;
    // A new grid from here on (a ragged block shifts the pattern): the open band ends at the
    // last family after whose pieces everything else starts; the rest is walked again.
    std::size_t cut = i;
    while (cut > open && last_end(open, cut) > fams[cut].start) --cut;
    if (cut == open) return false;
    if (!close(open, cut, period)) return false;
    open = cut;
    period = 0;
    i = cut - 1;
  }
  return close(open, fams.size(), period) && covered == extent && end <= extent;
}

/// The walk of one side of a plan: dims innermost first (the walking side's storage order),
/// `messages` the plan's sends or recvs as (peer coordinates per walk dimension, message index)
/// for the messages that are packed (not local, not direct). Returns an invalid walk when a
/// dimension's families do not band into storage order (no built-in layout does that).
inline Walk make_walk(std::span<const WalkInput> dims, bool src_side,
                      std::span<const std::pair<std::vector<index_t>, int>> messages) {
  Walk w;
  const std::size_t N = dims.size();
  index_t weight = 1;
  std::vector<index_t> weights(N);
  for (std::size_t k = 0; k < N; ++k) {
    weights[k] = weight;
    weight *= static_cast<index_t>(dims[k].families->size());
    if (dims[k].extent == 0) return w;  // nothing on this side
  }
  w.slot.assign(static_cast<std::size_t>(weight), -1);
  for (const auto& [coords, index] : messages) {
    index_t at = 0;
    for (std::size_t k = 0; k < N; ++k) at += coords[k] * weights[k];
    w.slot[static_cast<std::size_t>(at)] = index;
  }
  bool kept_any = false;
  for (std::size_t k = 0; k < N; ++k) kept_any = kept_any || dims[k].extent > 1;
  std::vector<WalkFamily> fams;
  for (std::size_t k = 0; k < N; ++k) {
    const WalkInput& in = dims[k];
    fams.clear();
    for (std::size_t c = 0; c < in.families->size(); ++c) {
      const std::vector<Run>& list = (*in.families)[c];
      index_t total = 0, prefix = 0;
      for (const Run& r : list) total += r.size();
      for (const Run& r : list) {
        WalkFamily f;
        f.member = WalkMember{0, r.len, 0, r.count, prefix, r.size(), total, static_cast<index_t>(c)};
        f.start = src_side ? r.src : r.dst;
        f.stride = r.count > 1 ? (src_side ? r.src_stride : r.dst_stride) : 0;
        fams.push_back(f);
        prefix += r.size();
      }
    }
    if (in.extent == 1 && (kept_any || k + 1 < N)) {
      // Folded: one element, one family of one piece (the last dimension stays if all are folded).
      if (fams.size() != 1 || fams[0].member.size != 1) return Walk{};
      w.fixed += fams[0].member.coord * weights[k];
      continue;
    }
    WalkDim dim;
    dim.stride = in.stride;
    dim.weight = weights[k];
    if (!band_families(fams, dim, in.extent)) return Walk{};
    w.dims.push_back(std::move(dim));
  }
  index_t elements = 0, pieces = 0;
  for (const WalkMember& m : w.dims[0].members) {
    elements += m.size;
    pieces += m.count;
  }
  w.piece_elements = pieces == 0 ? 0 : (elements + pieces - 1) / pieces;
  w.valid = true;
  return w;
}
}  // namespace detail

}  // namespace redist
